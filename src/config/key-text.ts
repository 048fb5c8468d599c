/**
 * What Crow accepts as an API key typed or piped to `crow login`. Keys of
 * the providers Crow speaks to are short runs of visible ASCII (letters,
 * digits, `-`, `_`, `.`); they travel in an HTTP header, where a control
 * character or a line break would end the header and let text through as
 * another one. Anything else is refused with where it is, never with the
 * key itself.
 */

/**
 * The most characters a key may have. Provider keys are about 50–200;
 * Windows' Credential Manager keeps at most 2,560 bytes (CRED_MAX_CREDENTIAL_BLOB_SIZE,
 * in UTF-16: 1,280 characters), so a longer key is kept in the file instead.
 */
export const MAX_KEY_LENGTH = 4096;

/** The key as typed or piped, without the spaces and line end around it (a pasted key often brings one). */
export function trimmedKey(typed: string): string {
  return typed.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
}

/** Why `key` (trimmed) cannot be an API key, or undefined when it can. Never quotes the key. */
export function keyProblem(key: string): string | undefined {
  if (key === '') return 'the key is empty';
  if (key.length > MAX_KEY_LENGTH) return `the key is ${key.length} characters long, more than the ${MAX_KEY_LENGTH} Crow keeps (API keys are far shorter: is this the key?)`;
  for (let i = 0; i < key.length; i += 1) {
    const code = key.charCodeAt(i);
    if (code >= 0x21 && code <= 0x7e) continue;
    return `the key holds ${characterName(code)} at character ${i + 1}; an API key is one line of letters, digits and punctuation`;
  }
  return undefined;
}

function characterName(code: number): string {
  if (code === 0x0a || code === 0x0d) return 'a line break (it spans several lines)';
  if (code === 0x1b) return 'an escape character (an arrow or function key, or a colour code)';
  if (code === 0x09) return 'a tab';
  if (code === 0x20) return 'a space';
  if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) return `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  return 'a character outside ASCII';
}
