/**
 * A scripted stand-in for an OpenAI-compatible chat model (`POST /v1/chat/completions`), for n8n's
 * OpenAI Chat Model node. It answers as a real model would in a tool-calling loop: the user's prompt
 * names a scenario; each scenario lists the tool calls to make, and the next step may depend on the
 * last tool result (a model that reads an error and corrects its call). Every request is recorded, so
 * a test sees exactly what n8n gave the model, tool results included.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from '../../../tools/n8n/proc';

export interface ChatMessage {
	role: string;
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
	stream?: boolean;
}

/** What the model does next: call a tool, or answer in text. */
export type ModelStep = { tool: string; args: Record<string, unknown> } | { answer: string };

/**
 * A scenario decides the next step from the tool results so far (oldest first, as n8n sent them back).
 * Returning an answer ends the loop.
 */
export type Scenario = (toolResults: string[]) => ModelStep;

function text(content: ChatMessage['content']): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((part) => part.text ?? '').join('');
	return '';
}

export class ScriptedModel {
	readonly requests: ChatRequest[] = [];

	private server?: Server;

	private calls = 0;

	constructor(private readonly scenarios: Record<string, Scenario>) {}

	/** The OpenAI base URL to put in n8n's OpenAI credential. */
	url = '';

	async start(): Promise<void> {
		this.server = createServer((req, res) => void this.handle(req, res));
		// From freePort, not port 0: the system could offer a port handed out to another run's n8n, not yet bound.
		const port = await freePort();
		await new Promise<void>((resolve, reject) => this.server!.once('error', reject).listen(port, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${port}/v1`;
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}

	/** The tool results (tool messages) n8n sent in the last request of the scenario named in the prompt. */
	toolResults(scenario: string): string[] {
		const last = [...this.requests].reverse().find((r) => this.scenarioOf(r) === scenario);
		return last ? last.messages.filter((m) => m.role === 'tool').map((m) => text(m.content)) : [];
	}

	/** Requests made for one scenario. */
	requestsFor(scenario: string): ChatRequest[] {
		return this.requests.filter((r) => this.scenarioOf(r) === scenario);
	}

	private scenarioOf(request: ChatRequest): string | undefined {
		const prompt = request.messages.filter((m) => m.role === 'user').map((m) => text(m.content)).join('\n');
		return /scenario:\s*([\w-]+)/i.exec(prompt)?.[1];
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		if (req.method === 'GET' && req.url?.endsWith('/models')) {
			return this.json(res, 200, { object: 'list', data: [{ id: 'scripted-model', object: 'model', owned_by: 'test' }] });
		}
		if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
			return this.json(res, 404, { error: { message: `no such endpoint: ${req.method} ${req.url}` } });
		}
		const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
		this.requests.push(request);
		const name = this.scenarioOf(request);
		const scenario = name ? this.scenarios[name] : undefined;
		if (!scenario) return this.json(res, 400, { error: { message: `unknown scenario in prompt: ${name}` } });
		const toolResults = request.messages.filter((m) => m.role === 'tool').map((m) => text(m.content));
		const step = scenario(toolResults);
		const message: ChatMessage =
			'answer' in step
				? { role: 'assistant', content: step.answer }
				: {
						role: 'assistant',
						content: null,
						tool_calls: [
							{ id: `call_${++this.calls}`, type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.args) } },
						],
					};
		const finish = 'answer' in step ? 'stop' : 'tool_calls';
		if (request.stream) return this.stream(res, request.model, message, finish);
		this.json(res, 200, {
			id: `chatcmpl-${this.calls}-${this.requests.length}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: request.model,
			choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
			usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
		});
	}

	/** The same answer as server-sent events, for clients that ask for a stream. */
	private stream(res: ServerResponse, model: string, message: ChatMessage, finish: string): void {
		res.writeHead(200, { 'Content-Type': 'text/event-stream' });
		const base = { id: `chatcmpl-${this.requests.length}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
		const delta = message.tool_calls
			? { role: 'assistant', tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) }
			: { role: 'assistant', content: message.content };
		res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
		res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
		res.end('data: [DONE]\n\n');
	}

	private json(res: ServerResponse, status: number, body: unknown): void {
		res.writeHead(status, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify(body));
	}
}
