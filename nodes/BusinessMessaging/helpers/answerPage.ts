/**
 * The page a recipient sees after tapping the link of *Send and Wait for Response*. Plain HTML with
 * inline CSS (no scripts, no external files), readable on a phone. Answers are sent by POST from
 * this page, never by opening the link: chat apps fetch links for previews, and a GET must not answer.
 */

export interface Question {
	kind: 'approval' | 'freeText';
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

function page(title: string, body: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{margin:0;font:17px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:28rem;margin:0 auto;padding:2rem 1.25rem}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:0 0 1rem}
form{display:flex;flex-direction:column;gap:.75rem}
button{font:inherit;font-weight:600;padding:.9rem 1rem;border-radius:.6rem;border:0;min-height:3rem;cursor:pointer}
.approve{background:#1a7f37;color:#fff}
.decline{background:#fff;color:#b42318;border:2px solid #b42318}
.send{background:#0b57d0;color:#fff}
textarea{font:inherit;padding:.75rem;border-radius:.6rem;border:1px solid #8c959f;min-height:8rem;width:100%;box-sizing:border-box}
label{font-weight:600}
.error{color:#b42318;font-weight:600}
</style></head>
<body><main>${body}</main></body></html>`;
}

/** The question: buttons for an approval, a text box for a free-text answer. */
export function questionPage(question: Question, error?: string): string {
	const problem = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '';
	if (question.kind === 'approval') {
		const decline =
			question.approvalType === 'double'
				? `<button class="decline" type="submit" name="${ANSWER_FIELD}" value="${DECLINE}">${escapeHtml(question.declineLabel)}</button>`
				: '';
		return page(
			'Your answer',
			`<h1>Your answer</h1><p>Choose your answer to the message you received.</p>${problem}
<form method="post"><button class="approve" type="submit" name="${ANSWER_FIELD}" value="${APPROVE}">${escapeHtml(question.approveLabel)}</button>${decline}</form>`,
		);
	}
	return page(
		'Your answer',
		`<h1>Your answer</h1><p>Write your answer to the message you received.</p>${problem}
<form method="post"><label for="${ANSWER_FIELD}">${escapeHtml(question.answerLabel)}</label>
<textarea id="${ANSWER_FIELD}" name="${ANSWER_FIELD}" required maxlength="4000"></textarea>
<button class="send" type="submit">${escapeHtml(question.sendLabel)}</button></form>`,
	);
}

export function thanksPage(): string {
	return page('Thank you', '<h1>Thank you</h1><p>Your answer was received. You can close this page.</p>');
}

/** A link of a question that is no longer waiting (answered, or replaced by the next one). */
export function answeredPage(): string {
	return page('No answer needed', '<h1>No answer needed</h1><p>This question was already answered or is no longer open.</p>');
}
