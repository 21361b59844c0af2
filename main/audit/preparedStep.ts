/**
 * One step of a call with its canonical text made ahead of the call's record (AuditStore.prepareStep),
 * while its tool runs: the record at the call's end then canonicalizes only the steps that came
 * after. `text` is the step's canonical JSON as the log stores it (redacted, well-formed) and
 * `value` what that text reads back as, the step the record holds.
 */
export class PreparedStep {
  constructor(
    readonly text: string,
    readonly value: unknown,
  ) {}
}
