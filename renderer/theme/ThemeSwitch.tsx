import { consoleTheme, THEME_PREFERENCES, useTheme, type ThemePreference } from './theme';

const LABEL: Record<ThemePreference, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The theme switch in the header: follow the system, or light, or dark. */
export function ThemeSwitch() {
  const { preference } = useTheme();
  return (
    <label className="theme-switch">
      <select
        aria-label="Theme"
        data-testid="theme-switch"
        value={preference}
        onChange={(event) => consoleTheme().choose(event.target.value as ThemePreference)}
      >
        {THEME_PREFERENCES.map((choice) => (
          <option key={choice} value={choice}>
            {LABEL[choice]}
          </option>
        ))}
      </select>
    </label>
  );
}
