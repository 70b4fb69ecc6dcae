import { type ThemeChoice, useTheme } from '../state/theme';

const CHOICES: Array<{ value: ThemeChoice; label: string }> = [
  { value: 'system', label: 'Follow the system' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** Light, dark, or whatever the operating system uses; kept on this machine. */
export function Appearance() {
  const { choice, choose } = useTheme();
  return (
    <section className="card" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Appearance</h2>
      <fieldset className="toolbar-row">
        <legend className="muted">Theme</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className="check">
            <input type="radio" name="theme" value={c.value} checked={choice === c.value} onChange={() => choose(c.value)} /> {c.label}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
