/** A command's answer: one line of JSON on stdout. */
export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
