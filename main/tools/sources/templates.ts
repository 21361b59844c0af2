import { GateError } from '../../../shared/errors';

/**
 * `{{field}}` templates of subprocess and HTTP tool manifests. A placeholder names one top-level
 * input field; what it is replaced with is data only: it is never read by a shell, split into
 * words or allowed to change a URL's host (see the two sources).
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The input fields a template names, in order of appearance. */
export function templateFields(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** Whether the whole template is one placeholder (its value becomes the whole argument). */
export function isWholePlaceholder(template: string): boolean {
  return /^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/.test(template);
}

/** A field's value as template text: strings as they are, numbers and booleans written out, objects as JSON, absent as ''. */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The template with each placeholder replaced by `encode(field's text)` and, when `secrets` are
 * given, each `$ENV.NAME` of the template itself by its value. One pass: what a field brings in is
 * never read again, so a field's text cannot call up a secret.
 */
export function fillTemplate(
  template: string,
  input: unknown,
  encode: (text: string) => string = (text) => text,
  secrets?: ReadonlyMap<string, string>,
): string {
  const fields = (input ?? {}) as Record<string, unknown>;
  const pattern = secrets ? WITH_SECRETS : PLACEHOLDER;
  return template.replace(pattern, (_whole, name: string | undefined, secret: string | undefined) => {
    if (name !== undefined) return encode(fieldText(Object.hasOwn(fields, name) ? fields[name] : undefined));
    const value = secrets?.get(secret!);
    if (value === undefined) throw new GateError('EVALIDATION', `$ENV.${secret} was not given to this call; the gate resolves a manifest's own secrets for each call`);
    return value;
  });
}

const WITH_SECRETS = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}|\$ENV\.([A-Z_][A-Z0-9_]*)/g;

/**
 * Refuses, at load, a template naming a field the input schema does not declare: a typo would
 * otherwise always send ''. `where` names the template in the message (`source.args[1]`).
 */
export function checkTemplateFields(template: string, inputSchema: Record<string, unknown>, manifestPath: string, where: string): void {
  const declared = Object.keys((inputSchema.properties ?? {}) as Record<string, unknown>);
  for (const field of templateFields(template)) {
    if (declared.includes(field)) continue;
    throw new GateError(
      'EVALIDATION',
      `tool manifest ${manifestPath}: ${where} names {{${field}}}, which is no field of inputSchema (it has ${declared.join(', ') || 'none'}); ` +
        'declare it under inputSchema.properties or fix the name',
    );
  }
}
