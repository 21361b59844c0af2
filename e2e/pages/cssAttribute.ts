/** A CSS attribute selector `[name="value"]` with the value quoted safely (ids come from the gate). */
export function attributeSelector(name: string, value: string): string {
  return `[${name}=${JSON.stringify(value)}]`;
}
