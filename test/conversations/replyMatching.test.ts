/** Expected replies are matched the way people type them (helpers/replyMatching.ts). */
import { comparable, expectedAnswers, matchingAnswer } from '../../nodes/BusinessMessaging/helpers/replyMatching';

const YES_NO = ['YES', 'NO'];

test.each([
	['YES', 'YES'],
	['yes', 'YES'],
	['  Yes ', 'YES'],
	['Yes!', 'YES'],
	['yes.', 'YES'],
	['YES 👍', 'YES'],
	['Yés', 'YES'],
	['"no"', 'NO'],
	['No!!!', 'NO'],
])('%j matches %j', (reply, answer) => {
	expect(matchingAnswer(reply, YES_NO)).toBe(answer);
});

test.each(['y', 'yeah', 'yes please', 'no thanks', '', '   ', '👍', 'nope', 'YES NO'])('%j matches nothing', (reply) => {
	expect(matchingAnswer(reply, YES_NO)).toBeUndefined();
});

test('several words: spaces and punctuation between them count once, case and accents never', () => {
	expect(matchingAnswer('  track   ORDER! ', ['Track order', 'Contact support'])).toBe('Track order');
	expect(matchingAnswer('Mañana a las 9', ['manana a las 9'])).toBe('manana a las 9');
	expect(matchingAnswer('track-order', ['Track order'])).toBe('Track order');
	expect(comparable('Ｙｅｓ')).toBe('yes');
});

test('the expected list: trimmed, empty and repeated entries left out, the first spelling kept', () => {
	expect(expectedAnswers([' YES ', '', '  ', 'yes', 'NO', null, 'No!'])).toEqual(['YES', 'NO']);
	expect(expectedAnswers(['', '  ', '👍'])).toEqual([]);
});
