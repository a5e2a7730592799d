/**
 * The page a recipient sees after tapping the link of *Send and Wait for Response*. Plain HTML with
 * inline CSS (no scripts, no external files), readable on a phone. Answers are sent by POST from
 * this page, never by opening the link: chat apps fetch links for previews, and a GET must not answer.
 * Like n8n's own send-and-wait page, the question comes first and the buttons directly under it, so
 * someone with several open requests sees which one they answer.
 */

export interface Question {
	kind: 'approval' | 'freeText';
	/** The message as it was sent. */
	message: string;
	/** Who asks, shown above the question when set. */
	askedBy: string;
	/** Approval: only an approve button, or approve and decline. */
	approvalType: 'single' | 'double';
	approveLabel: string;
	declineLabel: string;
	answerLabel: string;
	sendLabel: string;
}

/** The POST field that carries the answer. */
export const ANSWER_FIELD = 'answer';
export const APPROVE = 'approve';
export const DECLINE = 'decline';

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Sizes in rem and no fixed widths: readable at 320 px and at 200% text size. Colours meet WCAG 2.2 AA in
// both schemes: 4.5:1 for text, 3:1 for a control's edge (--field, a button's fill) against the page.
function page(title: string, body: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>
:root{--bg:#f4f5f7;--card:#fff;--text:#1f2328;--muted:#57606a;--line:#d0d7de;--field:#6e7781;--approve:#1a7f37;--decline:#b42318;--send:#0b57d0}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9da7b3;--line:#3d444d;--field:#8b949e;--approve:#238636;--decline:#ff7b72;--send:#1f6feb}}
body{margin:0;font:1.0625rem/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
main{max-width:30rem;margin:0 auto;padding:1.5rem 16px}
h1{font-size:1.25rem;margin:0 0 .75rem}
p{margin:0 0 1rem}
.from{color:var(--muted);font-size:.95rem;margin-bottom:.5rem}
.question{background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:.75rem 14px;margin:0 0 1.25rem;white-space:pre-wrap;overflow-wrap:anywhere}
form{display:flex;flex-direction:column;gap:.75rem}
button{font:inherit;font-weight:600;padding:.9rem 1rem;border-radius:.6rem;border:0;min-height:3rem;cursor:pointer;overflow-wrap:anywhere}
.approve{background:var(--approve);color:#fff}
.decline{background:var(--card);color:var(--decline);border:2px solid var(--decline)}
.send{background:var(--send);color:#fff}
textarea{font:inherit;color:inherit;background:var(--card);padding:.75rem;border-radius:.6rem;border:1px solid var(--field);min-height:8rem;width:100%;box-sizing:border-box}
label{font-weight:600}
.error{color:var(--decline);font-weight:600}
</style></head>
<body><main>${body}</main></body></html>`;
}

const quote = (text: string) => `<div class="question">${escapeHtml(text)}</div>`;

function asked(question: Question): string {
	const from = question.askedBy ? `<p class="from">From ${escapeHtml(question.askedBy)}</p>` : '';
	return `${from}${quote(question.message)}`;
}

/** The question, then buttons for an approval or a text box for a free-text answer. */
export function questionPage(question: Question, error?: string): string {
	const problem = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '';
	if (question.kind === 'approval') {
		const decline =
			question.approvalType === 'double'
				? `<button class="decline" type="submit" name="${ANSWER_FIELD}" value="${DECLINE}">${escapeHtml(question.declineLabel)}</button>`
				: '';
		return page(
			'Your answer',
			`<h1>Your answer, please</h1>${asked(question)}${problem}
<form method="post"><button class="approve" type="submit" name="${ANSWER_FIELD}" value="${APPROVE}">${escapeHtml(question.approveLabel)}</button>${decline}</form>`,
		);
	}
	return page(
		'Your answer',
		`<h1>Your answer, please</h1>${asked(question)}${problem}
<form method="post"><label for="${ANSWER_FIELD}">${escapeHtml(question.answerLabel)}</label>
<textarea id="${ANSWER_FIELD}" name="${ANSWER_FIELD}" required maxlength="4000"></textarea>
<button class="send" type="submit">${escapeHtml(question.sendLabel)}</button></form>`,
	);
}

/**
 * What was answered to which question: "You approved:" and the question, or the text and the question.
 * Once the run goes on, n8n answers the link itself with its own "No action required" page (see
 * docs/compatibility.md, "An answered link opened again"), so this page is the recipient's record.
 */
export function thanksPage(question: Question, answer: string): string {
	const done =
		'<p>Your answer was received. You can close this page.</p><p class="from">Opening the link again later only says that no action is required: this page is the record of your answer.</p>';
	if (question.kind === 'approval') {
		const verb = answer === APPROVE ? 'approved' : 'declined';
		return page(`You ${verb}`, `<h1>You ${verb}:</h1>${asked(question)}${done}`);
	}
	return page(
		'Your answer',
		`<h1>You answered:</h1>${quote(answer)}<p class="from">to the question${question.askedBy ? ` from ${escapeHtml(question.askedBy)}` : ''}:</p>${quote(question.message)}${done}`,
	);
}

/**
 * A link of a question that is no longer waiting, while the same run waits for a newer one (a loop):
 * answered already, or replaced. Shows the question the link was for when the run still knows it.
 */
export function answeredPage(earlier?: Pick<Question, 'message' | 'askedBy'>): string {
	const which = earlier
		? `<p>This link was for the question${earlier.askedBy ? ` from ${escapeHtml(earlier.askedBy)}` : ''}:</p>${quote(earlier.message)}<p>It was already answered, or a newer question replaced it. You can close this page.</p>`
		: '<p>This question was already answered or is no longer open. You can close this page.</p>';
	return page('No answer needed', `<h1>No answer needed</h1>${which}`);
}

/** A link changed after it was sent (n8n's own check answers 401 first where it checks). */
export function invalidLinkPage(): string {
	return page('Link not valid', '<h1>This link is not valid</h1><p>Open the link exactly as it came in the message.</p>');
}
