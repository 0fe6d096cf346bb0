// Lint rules the compiler cannot check: promises left floating (a lost error in a bot handler) and prices parsed as floats.
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist/**", "**/dist-bench/**", "**/node_modules/**", "**/vitest.config.ts"] },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
      "@typescript-eslint/await-thenable": "error",
      "no-restricted-globals": ["error", { name: "parseFloat", message: "Money is BigDecimal: use Decimal.parse." }],
      "no-restricted-properties": ["error", { object: "Number", property: "parseFloat", message: "Money is BigDecimal: use Decimal.parse." }],
      eqeqeq: ["error", "always", { null: "ignore" }]
    }
  }
)
