// Lint rules the compiler cannot check: promises left floating (a lost error in a bot handler), prices parsed as floats,
// and imports of @effect/platform's index (it loads every module of the package: over 20 MB of memory for nothing);
// in core, no `any`.
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
      "no-restricted-imports": ["error", {
        paths: [{ name: "@effect/platform", message: "Import the module alone (@effect/platform/KeyValueStore, …): the index loads every module, over 20 MB." }]
      }],
      eqeqeq: ["error", "always", { null: "ignore" }]
    }
  },
  {
    // core's source: no `any` (issue 21); a type the compiler cannot check is `unknown`, narrowed where read
    files: ["packages/core/src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" }
  }
)
