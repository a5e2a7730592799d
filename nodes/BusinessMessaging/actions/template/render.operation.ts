import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { renderItemTemplate } from '../../helpers/templates';
import { optionsField, placeholderValuesField, templateField } from '../common.descriptions';
import type { RunState } from '../../helpers/runState';
import type { Operation } from '../operation';

const properties: INodeProperties[] = [templateField, placeholderValuesField, optionsField];

const description = updateDisplayOptions(
	{ show: { resource: ['template'], operation: ['render'] } },
	properties,
);

async function execute(run: RunState, itemIndex: number): Promise<IDataObject> {
	const { template, rendered } = await renderItemTemplate(run, itemIndex);
	return {
		template: { id: template.id, name: template.name, language: template.language, status: template.status },
		...(rendered.header !== undefined ? { header: rendered.header } : {}),
		body: rendered.body,
		buttons: rendered.buttons,
	};
}

export const operation: Operation = { kind: 'request', description, execute };
