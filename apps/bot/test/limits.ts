/**
 * Telegram's limits, checked on a call the bot made to the local Bot API: texts of 1 to 4,096 characters with
 * entities inside them and no parse mode (so nothing in a text is read as markup), captions up to 1,024, press
 * answers up to 200, keyboards well formed with callback data of 1 to 64 bytes the bot reads back; and no character
 * that hides or reorders text, and no refusal but "not modified".
 */
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import type { ApiCall } from "../src/kernel/telegram/local/LocalBotApi.js"

/** Characters no message of the bot should carry (a line break is the one control character allowed). */
export const HIDDEN = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

/** the entities the bot's formatters make */
const ENTITY_TYPES = new Set(["bold", "italic", "code", "pre"])

const textProblems = (text: unknown, entities: unknown): ReadonlyArray<string> => {
  if (typeof text !== "string" || text.trim().length === 0) return ["empty text"]
  const problems: Array<string> = []
  if (text.length > 4096) problems.push(`text of ${text.length} characters`)
  if (HIDDEN.test(text)) problems.push(`hidden character in ${JSON.stringify(text.slice(0, 80))}`)
  for (const entity of (Array.isArray(entities) ? entities : []) as ReadonlyArray<{ offset: number; length: number; type: string }>) {
    if (!(entity.offset >= 0 && entity.length > 0 && entity.offset + entity.length <= text.length) || !ENTITY_TYPES.has(entity.type)) {
      problems.push(`entity ${JSON.stringify(entity)}`)
    }
  }
  return problems
}

const keyboardProblems = (markup: unknown): ReadonlyArray<string> => {
  const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard
  if (!Array.isArray(rows) || rows.some((row) => !Array.isArray(row) || row.length === 0 || row.length > 8)) return ["malformed keyboard"]
  const buttons = rows.flat() as ReadonlyArray<{ text?: unknown; callback_data?: unknown }>
  const problems: Array<string> = buttons.length > 100 ? ["over 100 buttons"] : []
  for (const button of buttons) {
    if (typeof button.text !== "string" || button.text.trim() === "" || HIDDEN.test(button.text)) problems.push(`button label ${JSON.stringify(button.text)}`)
    const data = button.callback_data
    if (typeof data !== "string" || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64 || CallbackData.decode(data) === undefined) {
      problems.push(`callback data ${JSON.stringify(data)}`)
    }
  }
  return problems
}

/** What is wrong with a call, if anything, each problem named with the method. */
export const beyondLimits = (call: ApiCall): ReadonlyArray<string> => {
  const { payload } = call
  const problems: Array<string> = []
  if (payload.parse_mode !== undefined) problems.push(`parse mode ${String(payload.parse_mode)}`)
  if (call.method === "sendMessage" || call.method === "editMessageText") problems.push(...textProblems(payload.text, payload.entities))
  if ((call.method === "sendDocument" || call.method === "sendPhoto") && typeof payload.caption === "string" && payload.caption.length > 1024) problems.push("caption over 1,024 characters")
  if (call.method === "answerCallbackQuery" && typeof payload.text === "string" && payload.text.length > 200) problems.push("press answer over 200 characters")
  if (payload.reply_markup !== undefined) problems.push(...keyboardProblems(payload.reply_markup))
  // refreshing a view that did not change is the one refusal expected
  if (call.status !== "ok" && !(call.status === 400 && call.description?.includes("message is not modified"))) {
    problems.push(`${call.status} ${call.description}`)
  }
  return problems.map((problem) => `${call.method}: ${problem}`)
}
