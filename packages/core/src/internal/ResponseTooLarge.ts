/**
 * The cause of an HttpClient `ResponseError` when an answer's body is over the configured `maxResponseBytes`: the
 * client stopped reading it, and the transport reports a DecodeError.
 */
export class ResponseTooLarge {
  readonly _tag = "ResponseTooLarge"
  constructor(readonly limitBytes: number) {}

  get detail() {
    return `the answer exceeded ${this.limitBytes} bytes`
  }
}
