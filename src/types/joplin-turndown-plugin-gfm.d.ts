declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  /** Tables, strikethrough, task lists and highlighted code blocks. */
  export const gfm: TurndownService.Plugin;
  /** GFM tables (tables it cannot express are kept as HTML). */
  export const tables: TurndownService.Plugin;
  /** `del`, `s` and `strike` as `~~text~~`. */
  export const strikethrough: TurndownService.Plugin;
  /** Checkboxes in list items as `[ ]` and `[x]`. */
  export const taskListItems: TurndownService.Plugin;
  /** `div.highlight-LANG > pre` as a fenced block tagged LANG. */
  export const highlightedCodeBlock: TurndownService.Plugin;
}
