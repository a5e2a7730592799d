/**
 * Jest reporter: ends the run with the closing line every suite of `npm test` prints, `N passed, N failed`
 * (jest's own summary says "Tests: N passed, N total").
 */
class TotalsReporter {
	onRunComplete(_contexts, results) {
		process.stdout.write(`${results.numPassedTests} passed, ${results.numFailedTests} failed\n`);
	}
}

module.exports = TotalsReporter;
