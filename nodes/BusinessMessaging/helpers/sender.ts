import { NodeOperationError } from 'n8n-workflow';

import { getCredential } from '../transport';
import type { RunState } from './runState';

/** The sender: the node's field, else the credential's default. */
export async function getSender(
	run: RunState,
	itemIndex: number,
	required: boolean,
): Promise<string | undefined> {
	const fromNode = String(run.ctx.getNodeParameter('phoneNumberId', itemIndex, '') ?? '').trim();
	if (fromNode) return fromNode;
	const credentials = await getCredential(run);
	const fromCredential = String(credentials.phoneNumberId ?? '').trim();
	if (fromCredential) return fromCredential;
	if (!required) return undefined;
	throw new NodeOperationError(run.ctx.getNode(), 'Sender (Phone Number ID): no sender is set', {
		itemIndex,
		description:
			'Fill in "Sender (Phone Number ID)" on this node, or set "Default Sender (Phone Number ID)" in the credential.',
	});
}
