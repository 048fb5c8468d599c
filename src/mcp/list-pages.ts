/** Pages read of one list at most: a server whose cursor never ends is not followed for ever. */
export const MAX_LIST_PAGES = 100;

/** Follows `nextCursor` through at most MAX_LIST_PAGES pages. */
export async function allPages<Page extends { nextCursor?: string | undefined }, Item>(
  page: (cursor: string | undefined) => Promise<Page>,
  items: (page: Page) => Item[],
): Promise<Item[]> {
  const all: Item[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < MAX_LIST_PAGES; read++) {
    const next = await page(cursor);
    all.push(...items(next));
    cursor = next.nextCursor;
    if (cursor === undefined) break;
  }
  return all;
}
