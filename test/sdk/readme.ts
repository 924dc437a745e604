/** The TypeScript examples of the READMEs, for the tests that type-check and run them. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export interface Example {
  /** Where it is: `README.md ## SDK`, `sdk/README.md ## Quick start`. */
  readonly where: string;
  readonly code: string;
}

/** Every ```ts block of the file, with the `## ` heading it is under. */
export function tsExamples(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const examples: Example[] = [];
  let heading = '';
  for (const part of text.split(/^```/m).map((p, i) => ({ p, code: i % 2 === 1 }))) {
    if (!part.code) {
      const headings = [...part.p.matchAll(/^## (.+)$/gm)];
      if (headings.length > 0) heading = headings[headings.length - 1]?.[1] ?? heading;
      continue;
    }
    if (part.p.startsWith('ts\n')) examples.push({ where: `${file} ## ${heading}`, code: part.p.slice(3) });
  }
  return examples;
}

/** The one ```ts block under `## heading`. */
export function tsExample(file: string, heading: string): string {
  const found = tsExamples(file).filter((e) => e.where === `${file} ## ${heading}`);
  assert.equal(found.length, 1, `${file}: one \`\`\`ts block under "## ${heading}"`);
  return found[0]?.code ?? '';
}
