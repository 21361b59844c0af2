import { z } from 'zod';

/** The settings both shells take, in the order the console lists them. */
export const SETTING_KEYS = ['workspace', 'grants', 'approvalTimeoutSeconds', 'sandbox', 'toolModules', 'pool', 'readOnly', 'port', 'secretEnv', 'mode', 'auditDurability', 'checkpointDir', 'checkpointEveryRecords', 'checkpointIntervalSeconds', 'otlpEndpoint', 'otlpHeaders', 'claudeCodeBashInGate', 'undoStoreBytes', 'webSearch', 'team', 'teamCreds'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** Where a setting's value came from: a command-line flag, an environment variable, settings.json, or Toolgate's default. */
export const SettingSourceSchema = z.enum(['flag', 'environment', 'file', 'default']);
export type SettingSource = z.infer<typeof SettingSourceSchema>;

/** The settings in force, as the console's Settings view shows them. */
export const SettingsReportSchema = z.object({
  /** The settings file that was read (it may not exist). */
  file: z.string(),
  /** Whether that file exists. */
  fileExists: z.boolean(),
  /** Each setting: its value (JSON) and where it came from. */
  entries: z.array(
    z.object({
      /** The key, as written in settings.json. */
      key: z.enum(SETTING_KEYS),
      /** The value in force. */
      value: z.unknown(),
      /** Where it came from. */
      source: SettingSourceSchema,
    }),
  ),
});
export type SettingsReport = z.infer<typeof SettingsReportSchema>;
