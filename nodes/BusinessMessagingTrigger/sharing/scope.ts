import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/** Which trigger a request is for, and whether it shares its account's events: what every part of the sharing reads. */

/**
 * Which trigger node of which workflow: what the trigger keeps in process memory (its duplicate store, its
 * refusal count) and its registry are kept per scope.
 */
export function triggerScope(context: Pick<IWebhookFunctions, 'getWorkflow' | 'getNode'>): string {
	return `${context.getWorkflow().id ?? ''}/${context.getNode().id}`;
}

/** Receive Events' value for a trigger that receives through the sharing trigger. */
export const RECEIVE_THROUGH_SHARING_TRIGGER = 'sharingTrigger';

/**
 * Whether a trigger with these parameters shares its account's events (the switch shown as Share With Other
 * Workflows; its name is 0.2.0's Resume Waiting Runs, so workflows made with 0.2.0 keep working). A trigger
 * that receives through another never shares.
 */
export function sharesWith(parameters: IDataObject): boolean {
	return parameters.resumeWaitingRuns === true && parameters.receiveFrom !== RECEIVE_THROUGH_SHARING_TRIGGER;
}
