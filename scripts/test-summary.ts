// Adds up the Vitest and Playwright JSON reports into one closing line: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

function readJson(file: string): any {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function vitestCounts(report: any): Counts {
  return { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
}

function playwrightCounts(report: any): Counts {
  const stats = report.stats;
  return { passed: stats.expected + stats.flaky, failed: stats.unexpected, skipped: stats.skipped };
}

const [vitestFile, playwrightFile] = process.argv.slice(2);
const total: Counts = { passed: 0, failed: 0, skipped: 0 };
let missing = false;
for (const [file, count] of [[vitestFile, vitestCounts], [playwrightFile, playwrightCounts]] as const) {
  const report = file ? readJson(file) : null;
  if (!report) {
    console.log(`No test report at ${file}: that runner did not finish.`);
    missing = true;
    total.failed += 1;
    continue;
  }
  const counts = count(report);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || missing ? 1 : 0);
