// Lint rules the compiler cannot check: promises left floating (a lost error in a bot handler), prices parsed as floats,
// and imports of @effect/platform's index (it loads every module of the package: over 20 MB of memory for nothing);
// in core, no `any`; in the bot's kernel, no import of a feature (features register with the kernel, not the reverse).
import tseslint from "typescript-eslint"

const effectPlatformIndex = {
  name: "@effect/platform",
  message: "Import the module alone (@effect/platform/KeyValueStore, …): the index loads every module, over 20 MB."
}

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
      "no-restricted-imports": ["error", { paths: [effectPlatformIndex] }],
      eqeqeq: ["error", "always", { null: "ignore" }]
    }
  },
  {
    // core's source: no `any` (issue 21); a type the compiler cannot check is `unknown`, narrowed where read
    files: ["packages/core/src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "error" }
  },
  {
    // the bot's kernel knows no feature (issue 21): a feature registers its commands, buttons and layers with the
    // kernel, and the application (createBot.ts, features.ts, runtime.ts) puts them together
    files: ["apps/bot/src/kernel/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        paths: [effectPlatformIndex],
        patterns: [{
          group: ["**/features/**", "**/features.js", "**/runtime.js", "**/createBot.js", "**/app.js", "**/main.js"],
          message: "The kernel imports no feature: register what the feature brings (kernel/ui/Feature.ts) instead."
        }]
      }]
    }
  }
)
