import { create } from 'zustand';

/** The user's choice; 'system' follows the operating system's light or dark setting. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const THEME_KEY = 'ardesk.theme';
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');

function stored(): ThemeChoice {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The stylesheet keys its dark tokens on data-theme, so a choice and the system setting use one set of colours. */
function apply(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && darkQuery.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

interface ThemeState {
  choice: ThemeChoice;
  choose(choice: ThemeChoice): void;
}

export const useTheme = create<ThemeState>((set) => ({
  choice: stored(),
  choose(choice) {
    if (choice === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, choice);
    apply(choice);
    set({ choice });
  },
}));

apply(useTheme.getState().choice);
darkQuery.addEventListener('change', () => apply(useTheme.getState().choice));
