import assert from 'node:assert/strict';
import { reportSummary } from '../../../src/agents/report-summary';

describe('the one line that stands for a subagent report', () => {
  it("is the first sentence of seed 002's ## Summary section, wherever the section is", () => {
    const report = '# Review\n\nI looked at auth.ts.\n\n## Summary\nFound 3 critical security issues. MD5 is used.\n\n## Details\n- one\n';
    assert.equal(reportSummary(report), 'Found 3 critical security issues.');
    assert.equal(reportSummary('## Summary\n\nFound 3 issues: MD5, tokens, SQL injection\n'), 'Found 3 issues: MD5, tokens, SQL injection');
    assert.equal(reportSummary('### summary:\nVersion 1.2 is fine. Nothing else.'), 'Version 1.2 is fine.');
  });

  it('is the first line that is not a heading when there is no summary section, cut to its length', () => {
    assert.equal(reportSummary('# Report\n\nAll tests pass.\nMore.'), 'All tests pass.');
    assert.equal(reportSummary('x'.repeat(300), 100), `${'x'.repeat(99)}…`);
    assert.equal(reportSummary('## Summary\n'), '');
  });
});
