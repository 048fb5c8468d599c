/** What code can read off a spec and a constitution: requirement ids, user stories, open questions, MUST rules. */
import { markdownLines } from './markdown-lines';

export interface Requirement {
  /** "FR-001", "SC-002", "NFR-010". */
  id: string;
  /** The letters before the dash: FR, SC, NFR, … */
  kind: string;
  text: string;
  line: number;
}

export interface UserStory {
  /** "US1": the tag its tasks carry. */
  id: string;
  title: string;
  /** "P1". */
  priority?: string;
  line: number;
}

export interface Marked {
  line: number;
  text: string;
}

export interface SpecInventory {
  requirements: Requirement[];
  stories: UserStory[];
  /** `[NEEDS CLARIFICATION: …]` markers still in the text. */
  openQuestions: Marked[];
}

// Dashes are written as escapes (en, em; U+1F3AF for the target emoji below): the CLI bundle stays ASCII, which Node reads faster.
const REQUIREMENT_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+([A-Z]{1,4}-\d{2,4})\s*[:.\-\u2013\u2014]\s*(.*)$/;
const REQUIREMENT_ROW = /^\s*\|\s*([A-Z]{1,4}-\d{2,4})\s*\|\s*(.*?)\s*\|/;
const STORY_HEADING = /^#{2,4}\s+User Story\s+(\d+)\b\s*[-\u2013\u2014:]?\s*(.*)$/i;
const OPEN_QUESTION = /\[NEEDS CLARIFICATION[^\]]*\]/gi;
/** Requirement ids as they appear anywhere in text (task descriptions). */
export const REQUIREMENT_ID = /\b[A-Z]{1,4}-\d{2,4}\b/g;

/** The requirement ids, user stories and open questions a spec defines. */
export function readSpec(text: string): SpecInventory {
  const requirements: Requirement[] = [];
  const stories: UserStory[] = [];
  const openQuestions: Marked[] = [];
  const seen = new Set<string>();
  for (const line of markdownLines(text)) {
    if (line.inCode || line.inComment) continue;
    const plain = line.text.replace(/\*\*|__/g, '');
    const item = REQUIREMENT_ITEM.exec(plain) ?? REQUIREMENT_ROW.exec(plain);
    if (item && !seen.has(item[1]!)) {
      seen.add(item[1]!);
      requirements.push({ id: item[1]!, kind: item[1]!.split('-')[0]!, text: item[2]!.trim(), line: line.number });
    }
    const story = STORY_HEADING.exec(plain);
    if (story) {
      const priority = /\(Priority:\s*(P\d+)\)/i.exec(story[2]!);
      const title = story[2]!.replace(/\(Priority:[^)]*\)/i, '').replace(/\u{1F3AF}.*$/u, '').trim();
      stories.push({ id: `US${story[1]}`, title, ...(priority ? { priority: priority[1]!.toUpperCase() } : {}), line: line.number });
    }
    for (const match of line.text.matchAll(OPEN_QUESTION)) openQuestions.push({ line: line.number, text: match[0] });
  }
  return { requirements, stories, openQuestions };
}

export interface ConstitutionRule {
  line: number;
  text: string;
  /** The heading the rule sits under, e.g. "I. Test-First (NON-NEGOTIABLE)". */
  principle?: string;
}

/** The normative rules (MUST, MUST NOT, SHALL, NON-NEGOTIABLE) of a constitution, and template placeholders left in it. */
export function readConstitution(text: string): { rules: ConstitutionRule[]; placeholders: Marked[] } {
  const rules: ConstitutionRule[] = [];
  const placeholders: Marked[] = [];
  let principle: string | undefined;
  for (const line of markdownLines(text)) {
    if (line.inCode || line.inComment) continue;
    const heading = /^#{2,6}\s+(.*)$/.exec(line.text);
    if (heading) principle = heading[1]!.trim();
    for (const match of line.text.matchAll(/\[[A-Z][A-Z0-9_]{2,}\]/g)) placeholders.push({ line: line.number, text: match[0] });
    if (heading || !/\b(MUST|SHALL|NON-NEGOTIABLE)\b/.test(line.text)) continue;
    const rule = line.text.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
    if (rule !== '') rules.push({ line: line.number, text: rule, ...(principle !== undefined ? { principle } : {}) });
  }
  return { rules, placeholders };
}
