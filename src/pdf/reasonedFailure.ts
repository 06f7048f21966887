// A failure that says why in a word its callers branch on (`reason`: a refusal's wording, a retry
// or not), beside its message for people: a conversion's (./officePdf.ts), a stamp's
// (./stampPdf.ts).
export class ReasonedFailure<Reason extends string> extends Error {
  readonly reason: Reason;
  constructor(reason: Reason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
