/**
 * docs/errors.md against the code's error tables, section by section, in both directions: a row of
 * the code missing from the document fails, and so does a row of the document the code does not have.
 * Adding a surface is one more entry in SECTIONS. Its last section lists every domain error code with
 * each surface's answer: a code missing there, or an answer that is not the renderer's, fails too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DOMAIN_ERROR_CODES, DomainError } from '../../src/domain/errors.ts';
import { DASHBOARD_ERRORS, dashboardErrors } from '../../src/http/dashboard/errors.ts';
import type { ErrorRenderer } from '../../src/http/error-pipeline.ts';
import { EXT_ERRORS, extErrors } from '../../src/http/ext/errors.ts';
import { SANDBOX_ERRORS, sandboxErrors } from '../../src/http/sandbox/errors.ts';
import { V1_ERRORS, v1Errors } from '../../src/http/v1/errors.ts';
import { V3_ERRORS, v3Errors } from '../../src/http/v3/errors.ts';

const DOC_PATH = new URL('../../docs/errors.md', import.meta.url);
const TABLE_HEADER = ['Status', 'Body', 'Cause'];
const CODES_HEADING = 'Domain error codes';
/** The codes table's columns after Code and Meaning, each the surface whose answers it shows. */
const CODE_COLUMNS: readonly (readonly [string, ErrorRenderer])[] = [
  ['v3', v3Errors],
  ['v1', v1Errors],
  ['ext', extErrors],
  ['sandbox', sandboxErrors],
  ['dashboard', dashboardErrors],
];
const CODES_HEADER = ['Code', 'Meaning', ...CODE_COLUMNS.map(([name]) => name)];

interface Row {
  readonly status: number;
  readonly body: string;
  readonly cause: string;
}

interface Section {
  readonly heading: string;
  readonly rows: readonly Row[];
  /** The keys every body of the section has, in order, and the JSON type of each. */
  readonly bodyShape: Readonly<Record<string, 'string' | 'integer'>>;
  /** Keys of bodyShape some bodies leave out (the extension API's 401 and 500 carry no message). */
  readonly optionalKeys?: readonly string[];
}

/** The extension API's errors that carry no message, as its error handler answers them. */
const EXT_WITHOUT_MESSAGE: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'INTERNAL_ERROR']);

/** The code's tables, rendered as the document shows them (the Body column is the exact JSON). */
const SECTIONS: readonly Section[] = [
  {
    heading: 'v3 (public API)',
    rows: V3_ERRORS.map(({ status, error, cause }) => ({ status, body: JSON.stringify({ error }), cause })),
    bodyShape: { error: 'string' },
  },
  {
    heading: 'Sandbox (/_sim)',
    rows: SANDBOX_ERRORS.map(({ status, error, cause }) => ({
      status,
      body: JSON.stringify({ error, message: '<text>' }),
      cause,
    })),
    bodyShape: { error: 'string', message: 'string' },
  },
  {
    heading: 'v1 (legacy)',
    rows: V1_ERRORS.map(({ status, code, message, cause }) => ({
      status,
      body: JSON.stringify({ code, message }),
      cause,
    })),
    bodyShape: { code: 'integer', message: 'string' },
  },
  {
    heading: 'Extension API (/ext)',
    rows: EXT_ERRORS.map(({ status, error, cause }) => ({
      status,
      body: JSON.stringify(EXT_WITHOUT_MESSAGE.has(error) ? { error } : { error, message: '<text>' }),
      cause,
    })),
    bodyShape: { error: 'string', message: 'string' },
    optionalKeys: ['message'],
  },
  {
    heading: 'Dashboard (/dashboard/api)',
    rows: DASHBOARD_ERRORS.map(({ status, error, cause }) => ({
      status,
      body: JSON.stringify({ error, message: '<text>' }),
      cause,
    })),
    bodyShape: { error: 'string', message: 'string' },
  },
];

/** Splits a Markdown table row into cells; a `|` inside backticks or escaped as `\|` stays in its cell. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let inCode = false;
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\' && inner[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      inCode = !inCode;
      cell += c;
    } else if (c === '|' && !inCode) {
      out.push(cell.trim());
      cell = '';
    } else {
      cell += c;
    }
  }
  out.push(cell.trim());
  return out;
}

/** Each `## ` section's Status | Body | Cause table rows, by heading. */
function parseErrorsDoc(markdown: string): Map<string, Row[]> {
  const sections = new Map<string, Row[]>();
  let current: Row[] | undefined;
  let inTable = false;
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trim();
    const heading = /^##\s+(.+?)\s*$/.exec(line);
    if (heading?.[1] !== undefined && !line.startsWith('###')) {
      if (sections.has(heading[1])) throw new Error(`section "${heading[1]}" appears twice`);
      current = [];
      sections.set(heading[1], current);
      inTable = false;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const row = cells(line);
    if (row.every((c) => /^:?-+:?$/.test(c))) continue;
    if (!inTable) {
      // The first row of a table is its header: only Status | Body | Cause tables are read here, and
      // the domain codes' table (codeRows) in its own section.
      inTable = true;
      if (row.join('|') === CODES_HEADER.join('|')) {
        current = undefined;
        continue;
      }
      if (row.join('|') !== TABLE_HEADER.join('|'))
        throw new Error(`a table with columns ${row.join(' | ')}`);
      if (current === undefined) throw new Error('an error table outside any ## section');
      continue;
    }
    if (current === undefined) continue;
    const [status = '', body = '', cause = '', ...rest] = row;
    if (rest.length > 0 || !/^\d{3}$/.test(status) || !/^`[^`]+`$/.test(body)) {
      throw new Error(`a malformed row: ${line}`);
    }
    current.push({ status: Number(status), body: body.slice(1, -1), cause });
  }
  return sections;
}

const rowText = (r: Row) => `| ${r.status} | \`${r.body}\` | ${r.cause} |`;

/** What one side has that the other lacks, as document lines; both empty when they agree. */
function compareRows(code: readonly Row[], doc: readonly Row[]): { missing: string[]; extra: string[] } {
  const remaining = doc.map(rowText);
  const missing: string[] = [];
  for (const line of code.map(rowText)) {
    const i = remaining.indexOf(line);
    if (i < 0) missing.push(line);
    else remaining.splice(i, 1);
  }
  return { missing, extra: remaining };
}

function check(markdown: string, section: Section): { missing: string[]; extra: string[] } {
  const doc = parseErrorsDoc(markdown).get(section.heading);
  assert.ok(doc, `docs/errors.md has a "## ${section.heading}" section`);
  return compareRows(section.rows, doc);
}

/** The codes table of the last section, as Code -> the surfaces' cells. */
function codeRows(markdown: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  const start = markdown.indexOf(`\n## ${CODES_HEADING}\n`);
  assert.ok(start >= 0, `docs/errors.md has a "## ${CODES_HEADING}" section`);
  const lines = markdown.slice(start).split(/\r?\n/).slice(2);
  const end = lines.findIndex((l) => l.startsWith('## '));
  for (const line of end < 0 ? lines : lines.slice(0, end)) {
    if (!line.trim().startsWith('|')) continue;
    const row = cells(line);
    if (row.every((c) => /^:?-+:?$/.test(c)) || row[0] === 'Code') continue;
    const [code = '', , ...answers] = row;
    rows.set(code.replace(/^`|`$/g, ''), answers);
  }
  return rows;
}

/** A renderer's answer as a cell of the codes table: the status and the error (v1: code and message). */
function cellOf(answer: { status: number; body: object }): string {
  const body = answer.body as Record<string, unknown>;
  const name = 'code' in body ? `${body.code} ${body.message}` : body.error;
  return `${answer.status} \`${name}\``;
}

/** What the codes table should say, row by row, from the renderers themselves. */
function expectedCodeRows(): Map<string, string[]> {
  return new Map(
    DOMAIN_ERROR_CODES.map((code) => {
      const error = new DomainError(code, 'a message');
      return [code, CODE_COLUMNS.map(([, renderer]) => cellOf(renderer.domain(error)))];
    }),
  );
}

/** Codes whose row is missing or differs, and rows for codes the domain does not have. */
function compareCodes(markdown: string): { wrong: string[]; extra: string[] } {
  const doc = codeRows(markdown);
  const wrong: string[] = [];
  for (const [code, answers] of expectedCodeRows()) {
    const got = doc.get(code);
    if (got === undefined || got.join(' | ') !== answers.join(' | '))
      wrong.push(`${code}: ${answers.join(' | ')} (docs/errors.md: ${got?.join(' | ') ?? 'no row'})`);
  }
  const known = new Set<string>(DOMAIN_ERROR_CODES);
  return { wrong, extra: [...doc.keys()].filter((code) => !known.has(code)) };
}

describe('docs/errors.md', () => {
  const markdown = readFileSync(DOC_PATH, 'utf8');

  for (const section of SECTIONS) {
    describe(section.heading, () => {
      it('lists every error of the code', () => {
        const { missing } = check(markdown, section);
        assert.deepEqual(missing, [], `rows the code has and docs/errors.md lacks:\n${missing.join('\n')}`);
      });

      it('lists no error the code does not have', () => {
        const { extra } = check(markdown, section);
        assert.deepEqual(extra, [], `rows in docs/errors.md the code does not have:\n${extra.join('\n')}`);
      });

      it(`shows bodies that are JSON objects of exactly ${Object.keys(section.bodyShape).join(', ')}`, () => {
        const rows = parseErrorsDoc(markdown).get(section.heading) ?? [];
        assert.ok(rows.length > 0, 'the section has rows');
        const optional = section.optionalKeys ?? [];
        for (const row of rows) {
          const body = JSON.parse(row.body) as Record<string, unknown>;
          const expected = Object.keys(section.bodyShape).filter((k) => k in body || !optional.includes(k));
          assert.deepEqual(Object.keys(body), expected, row.body);
          for (const [key, type] of Object.entries(section.bodyShape)) {
            if (!(key in body) && optional.includes(key)) continue;
            const value = body[key];
            const ok = type === 'integer' ? Number.isInteger(value) : typeof value === 'string';
            assert.ok(ok, `${row.body}: ${key} is ${type}`);
          }
        }
      });
    });
  }

  describe(CODES_HEADING, () => {
    it("lists every domain error code with each surface's answer", () => {
      const { wrong } = compareCodes(markdown);
      assert.deepEqual(
        wrong,
        [],
        `codes missing or answered otherwise in docs/errors.md:\n${wrong.join('\n')}`,
      );
    });

    it('lists no code the domain does not have', () => {
      assert.deepEqual(compareCodes(markdown).extra, []);
    });

    it("has the surfaces' columns in the order the test reads them", () => {
      const header = markdown
        .split(/\r?\n/)
        .find((l) => l.startsWith('| Code |'))
        ?.trim();
      assert.equal(header, `| ${CODES_HEADER.join(' | ')} |`);
    });
  });

  it('has an error table only in sections the code has a table for', () => {
    const known = new Set(SECTIONS.map((s) => s.heading));
    for (const [heading, rows] of parseErrorsDoc(markdown)) {
      if (rows.length > 0)
        assert.ok(known.has(heading), `"## ${heading}" has an error table the test does not check`);
    }
  });

  describe('the check itself', () => {
    const v3 = SECTIONS[0] as Section;
    const firstRow = rowText(v3.rows[0] as Row);

    it('finds a row missing from the document', () => {
      const { missing, extra } = check(markdown.replace(`${firstRow}\n`, ''), v3);
      assert.deepEqual({ missing, extra }, { missing: [firstRow], extra: [] });
    });

    it('finds a document row the code does not have', () => {
      const invented = '| 418 | `{"error":"TEAPOT"}` | invented |';
      const { missing, extra } = check(markdown.replace(firstRow, `${firstRow}\n${invented}`), v3);
      assert.deepEqual({ missing, extra }, { missing: [], extra: [invented] });
    });

    it('finds a changed body or cause, and a row that moved to another section', () => {
      const changed = firstRow.replace('BAD_PARAMS', 'BAD_PARAMETERS');
      assert.deepEqual(check(markdown.replace(firstRow, changed), v3), {
        missing: [firstRow],
        extra: [changed],
      });
      const sandbox = SECTIONS[1] as Section;
      const lastSandboxRow = rowText(sandbox.rows[sandbox.rows.length - 1] as Row);
      const moved = markdown
        .replace(`${firstRow}\n`, '')
        .replace(lastSandboxRow, `${lastSandboxRow}\n${firstRow}`);
      assert.deepEqual(check(moved, v3), { missing: [firstRow], extra: [] });
      assert.deepEqual(check(moved, sandbox), { missing: [], extra: [firstRow] });
    });

    it('finds an extension row that lost its message, and an extension row missing', () => {
      const ext = SECTIONS.find((s) => s.heading === 'Extension API (/ext)') as Section;
      const row = rowText(ext.rows.find((r) => r.status === 404) as Row);
      const changed = row.replace(',"message":"<text>"', '');
      assert.notEqual(changed, row);
      assert.deepEqual(check(markdown.replace(row, changed), ext), { missing: [row], extra: [changed] });
      assert.deepEqual(check(markdown.replace(`${row}\n`, ''), ext), { missing: [row], extra: [] });
      const unauthorized = rowText(ext.rows.find((r) => r.status === 401) as Row);
      assert.equal(unauthorized.includes('message'), false, 'the 401 carries no message');
    });

    it('finds a domain code missing from the document, and one answered otherwise', () => {
      const line = markdown.split('\n').find((l) => l.startsWith('| `DELIVERY_NOT_FOUND` |')) ?? '';
      assert.ok(line, 'the document has a DELIVERY_NOT_FOUND row');
      const without = compareCodes(markdown.replace(`${line}\n`, ''));
      assert.equal(without.wrong.length, 1);
      assert.match(without.wrong[0] ?? '', /^DELIVERY_NOT_FOUND: .*no row/);
      const otherwise = compareCodes(
        markdown.replace(line, line.replace('404 `40400 NotFound`', '400 `11002 LockNotFound`')),
      );
      assert.equal(otherwise.wrong.length, 1);
      const invented = compareCodes(
        markdown.replace(line, `${line}\n${line.replace('DELIVERY_NOT_FOUND', 'TEAPOT')}`),
      );
      assert.deepEqual(invented.extra, ['TEAPOT']);
    });

    it('finds a v1 row with a changed code, and a v1 row missing', () => {
      const v1 = SECTIONS[2] as Section;
      const row = rowText(v1.rows.find((r) => r.body.includes('10002')) as Row);
      const changed = row.replace('10002', '10003');
      assert.deepEqual(check(markdown.replace(row, changed), v1), { missing: [row], extra: [changed] });
      assert.deepEqual(check(markdown.replace(`${row}\n`, ''), v1), { missing: [row], extra: [] });
    });
  });
});
