/** The circles among the `.ts` sources under `folders`: one entry per strongly connected component of the import graph. */
export declare const importCircles: (folders: ReadonlyArray<string>) => {
  readonly fileCount: number
  /** each circle's files, and chains of files (ending where they start) that together cover them */
  readonly circles: ReadonlyArray<{ readonly files: ReadonlyArray<string>; readonly chains: ReadonlyArray<ReadonlyArray<string>> }>
}
