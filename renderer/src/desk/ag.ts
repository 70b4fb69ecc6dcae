import {
  CellStyleModule,
  type ColDef,
  ClientSideRowModelModule,
  ColumnApiModule,
  ColumnAutoSizeModule,
  InfiniteRowModelModule,
  ModuleRegistry,
  RowApiModule,
  RowSelectionModule,
  RowStyleModule,
  ScrollApiModule,
  themeQuartz,
  TooltipModule,
} from 'ag-grid-community';

// Only the community modules the desk uses, so the bundle stays small.
ModuleRegistry.registerModules([
  InfiniteRowModelModule,
  ClientSideRowModelModule,
  ColumnApiModule,
  RowSelectionModule,
  RowApiModule,
  RowStyleModule,
  CellStyleModule,
  ScrollApiModule,
  ColumnAutoSizeModule,
  // Cells that cut their text short say it in full on hover.
  TooltipModule,
]);

/** The grid follows the app's own tokens, so light and dark come from one place; no web fonts. */
export const gridTheme = themeQuartz.withParams({
  fontFamily: 'inherit',
  fontSize: 13,
  headerFontSize: 12,
  headerFontWeight: 600,
  backgroundColor: 'var(--panel)',
  foregroundColor: 'var(--text)',
  headerBackgroundColor: 'var(--panel-2)',
  headerTextColor: 'var(--muted)',
  borderColor: 'var(--border)',
  accentColor: 'var(--accent)',
  rowHoverColor: 'var(--panel-2)',
  selectedRowBackgroundColor: 'var(--accent-weak)',
  browserColorScheme: 'inherit',
  spacing: 6,
  rowHeight: 36,
  headerHeight: 36,
  wrapperBorderRadius: 8,
});

/**
 * Column defaults of every grid. A constant: the grid compares options by reference and rebuilds
 * all its columns when a new object arrives, so nothing passed to it is created per render.
 * Sorting is the server's: a column sorts only where it says so.
 */
export const DEFAULT_COL_DEF: ColDef = { resizable: true, suppressHeaderMenuButton: true, sortable: false };
