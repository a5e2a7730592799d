import type { INodeProperties } from 'n8n-workflow';

export const senderField: INodeProperties = {
	displayName: 'Sender (Phone Number ID)',
	name: 'phoneNumberId',
	type: 'string',
	default: '',
	placeholder: 'Leave empty to use the credential’s default sender',
	description: 'The sender number’s ID (phone_number_id). Empty uses the credential’s Default Sender.',
};

export function listFields(noun: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
			hint: `Pages through the ${noun} 100 at a time`,
		},
	];
}
