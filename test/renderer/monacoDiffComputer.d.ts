// The diff algorithm the Monaco diff editor runs in its worker; plain code, so it runs under Node.
declare module 'monaco-editor/esm/vs/editor/common/diff/linesDiffComputers.js' {
  interface LineRange {
    readonly length: number;
  }
  interface LineRangeMapping {
    readonly original: LineRange;
    readonly modified: LineRange;
  }
  interface LinesDiffComputer {
    computeDiff(
      originalLines: string[],
      modifiedLines: string[],
      options: { ignoreTrimWhitespace: boolean; maxComputationTimeMs: number; computeMoves: boolean },
    ): { changes: readonly LineRangeMapping[] };
  }
  export const linesDiffComputers: { getDefault(): LinesDiffComputer };
}
