/**
 * What a feature brings to the kernel, all in one value (in its folder's `registration.ts`): its commands (the command
 * table: help, the menu, usage replies, metrics), its kinds of buttons (their codecs), its kinds of confirmed write
 * (each with its code on Write buttons), its composer, and the services it keeps (a layer, with its cache settings).
 * The kernel imports no feature: the application lists the features once (`features.ts`) and registers them at
 * start-up, before the first view is made; the kernel reads what they registered when it needs it.
 */
import { Layer } from "effect"
import { Composer } from "telegraf"
import type { Middleware } from "telegraf"
import type * as TradingLimits from "../access/TradingLimits.js"
import type { FeatureNeeds } from "../ops/BotRuntime.js"
import type { BotContext } from "../telegram/BotContext.js"
import type { Deps } from "../telegram/respond.js"
import * as CallbackData from "./CallbackData.js"
import * as Commands from "./commands.js"
import type { CommandSpec } from "./commands.js"

/**
 * What the application gives every feature's composer: the trading limits in force, and what features add
 * (`declare module "…/kernel/ui/Feature.js" { interface FeatureSettings { … } }`).
 */
export interface FeatureSettings {
  readonly limits: TradingLimits.TradingLimits
}

/**
 * How long features keep what their services hold, as the application sets it (each optional, with the feature's
 * default); each feature adds its own (`interface FeatureCaches { … }`, as for the settings).
 */
export interface FeatureCaches {}

/** One feature; `R` the services its layer builds (each declared in `FeatureServices`, `BotRuntime.ts`). */
export interface Feature<R = never> {
  /** the feature's folder, for logs and the kernel's own checks */
  readonly name: string
  readonly commands: ReadonlyArray<CommandSpec>
  readonly buttons: ReadonlyArray<CallbackData.ButtonCodec>
  /** its kinds of confirmed single write, each with its code (fixed for good: buttons already in chats carry it) */
  readonly writes?: ReadonlyArray<CallbackData.WriteCode>
  /** its handlers, as one middleware; the bot tries the features' in the order the application lists them */
  readonly composer: (deps: Deps, settings: FeatureSettings) => Middleware<BotContext>
  /** what it answers once no feature took an update (the hint for an unknown command): tried after every composer */
  readonly fallback?: (deps: Deps) => Middleware<BotContext>
  /** the services it keeps, built once with the runtime */
  readonly layer?: (caches: FeatureCaches) => Layer.Layer<R, never, FeatureNeeds>
}

/** The services a feature, or a union of features, keeps. */
export type Kept<F> = F extends Feature<infer R> ? R : never

const registered: Array<Feature<never>> = []

/** Registers the features, in the order help and Telegram's menu list their commands and the bot tries them. */
export const register = (features: ReadonlyArray<Feature<never>>): void => {
  for (const feature of features) {
    if (registered.some((other) => other.name === feature.name)) throw new Error(`feature ${feature.name}: registered twice`)
    Commands.register(feature.commands)
    CallbackData.register(feature.buttons)
    CallbackData.registerWrites(feature.writes ?? [])
    registered.push(feature)
  }
}

/** Every registered feature, in the order registered. */
export const features = (): ReadonlyArray<Feature<never>> => registered

/**
 * The features' handlers as one middleware: every feature's composer in their order, then their fallbacks. A command
 * a feature registered goes straight to that feature's composer (then the fallbacks), as only it handles the command:
 * the other features' composers would each only pass it on, and every one passed holds a frame while the reply waits.
 * Anything else (a press, a text, a command nobody registered) goes through them all.
 */
export const composer = (list: ReadonlyArray<Feature<never>>, deps: Deps, settings: FeatureSettings): Middleware<BotContext> => {
  const composers = list.map((feature) => feature.composer(deps, settings))
  const fallbacks = list.flatMap((feature) => (feature.fallback === undefined ? [] : [feature.fallback(deps)]))
  const everyone = Composer.compose([...composers, ...fallbacks])
  const byCommand = new Map(list.flatMap((feature, index) => {
    const routed = Composer.compose([composers[index]!, ...fallbacks])
    return feature.commands.map((command) => [command.name, routed] as const)
  }))
  return (ctx, next) => {
    const message = ctx.message
    // read as telegraf reads it to dispatch (`Composer.command`), after the name was lowered (`caseInsensitiveCommands`)
    const command = message !== undefined && "text" in message ? Commands.commandOf(message) : undefined
    return ((command === undefined ? undefined : byCommand.get(command.name)) ?? everyone)(ctx, next)
  }
}

/** The services the features keep, as one layer. */
export const layer = <const L extends ReadonlyArray<Feature<never>>>(list: L, caches: FeatureCaches): Layer.Layer<Kept<L[number]>, never, FeatureNeeds> =>
  // each feature's layer builds the services it declares (`Kept`), so their merge builds every one of them
  list.reduce<Layer.Layer<never, never, FeatureNeeds>>(
    (all, feature) => (feature.layer === undefined ? all : Layer.merge(all, feature.layer(caches))),
    Layer.empty
  ) as Layer.Layer<Kept<L[number]>, never, FeatureNeeds>
