import { z } from 'zod';
import { SecretNameSchema } from '../../secrets/secretsFile';
import { SearchProviderNameSchema, searchProvider } from './searchProviders';

/**
 * settings.json's `webSearch`: which service web_search asks, where, and the stored secret holding
 * its API key (stored `--for web_search:HOST`, so the key can go to that host only). Without it the
 * gate offers no web_search.
 */
export const WebSearchSettingsSchema = z
  .strictObject({
    /** searxng (an instance's JSON API), brave or tavily. */
    provider: SearchProviderNameSchema,
    /** The service's search address; needed for searxng (e.g. https://searx.example.org/search), Brave's and Tavily's public API otherwise. */
    url: z
      .string()
      .refine((text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol), 'is not an http:// or https:// URL')
      .optional(),
    /** The name of the stored secret holding the API key (brave and tavily need one). */
    keySecret: SecretNameSchema.optional(),
  })
  .superRefine((settings, context) => {
    const provider = searchProvider(settings.provider);
    if (settings.url === undefined && provider.defaultUrl === undefined) {
      context.addIssue({ code: 'custom', path: ['url'], message: `is missing: ${settings.provider} has no public address, so name your instance's search URL` });
    }
    if (provider.needsKey && settings.keySecret === undefined) {
      context.addIssue({ code: 'custom', path: ['keySecret'], message: `is missing: ${settings.provider} needs an API key, stored as a secret` });
    }
    if (!provider.needsKey && settings.keySecret !== undefined) {
      context.addIssue({ code: 'custom', path: ['keySecret'], message: `is given, but ${settings.provider} takes no API key` });
    }
  });
export type WebSearchSettings = z.infer<typeof WebSearchSettingsSchema>;

/** The address web_search asks: the one set, or the provider's public API. */
export function searchEndpoint(settings: WebSearchSettings): URL {
  return new URL(settings.url ?? searchProvider(settings.provider).defaultUrl!);
}
