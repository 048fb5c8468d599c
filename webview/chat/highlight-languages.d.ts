// highlight.js ships types for its core but not for each language module; every one exports a LanguageFn.
declare module 'highlight.js/lib/languages/*' {
  import type { LanguageFn } from 'highlight.js';
  const language: LanguageFn;
  export default language;
}
