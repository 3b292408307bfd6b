/**
 * The floor function: a handler that holds only the SDK client and the commands the real
 * function sends, and does the same DynamoDB calls with no framework around them. Its calls
 * are captured from the real handler (writes answered in process, see sdk-hooks.ts) and given
 * to it in the event, so it does exactly the DynamoDB work the function does, and nothing else.
 * A document's floor also answers a PDF of one line in the documents' font (lib/pdf-floor.ts).
 */
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../../shared/data/dynamo.ts';
import { FONT_FILE } from '../../../shared/document/font.ts';
import type { ObservedCall } from './sdk-hooks.ts';

/** Document-client command names, as lib-dynamodb exports them (`<name>Command`). */
export type FloorCommand = 'Get' | 'BatchGet' | 'Query' | 'Put' | 'Update' | 'Delete' | 'TransactWrite';

/**
 * Work a floor does beside its DynamoDB calls: `pdf`, a one-line PDF in the documents' font (a
 * function whose route answers a document: its PDF library and font are part of its floor).
 */
export type FloorWork = 'pdf';

/** The work of the floor of a route's function, by its action. */
export const floorWorkOf = (route: { action: string }): FloorWork[] => (route.action === 'document' ? ['pdf'] : []);

/** Files of packages the floor reads at run time, copied beside its bundle as for the function (infra/stack.ts). */
export const floorFilesOf = (work: readonly FloorWork[]): string[] => (work.includes('pdf') ? [FONT_FILE] : []);

export interface FloorCall {
  command: FloorCommand;
  input: Record<string, unknown>;
}

const BY_SDK_COMMAND: Record<string, FloorCommand> = {
  GetItemCommand: 'Get',
  BatchGetItemCommand: 'BatchGet',
  QueryCommand: 'Query',
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
  TransactWriteItemsCommand: 'TransactWrite',
};

export function floorCallsOf(calls: readonly ObservedCall[]): FloorCall[] {
  return calls.map((c) => {
    const command = BY_SDK_COMMAND[c.command];
    if (!command) throw new Error(`No floor command for ${c.command}`);
    const { ReturnConsumedCapacity: _ignored, ...input } = c.input;
    return { command, input };
  });
}

/** The floor handler's source, for one set of commands (and work); bundled with the stack's esbuild options. */
export function floorSource(commands: readonly FloorCommand[], work: readonly FloorWork[] = []): string {
  const names = [...new Set(commands)].sort();
  const pdf = work.includes('pdf');
  // Paths from the repository root: the floor is bundled with it as its resolveDir (bundles.ts).
  const pdfImports = pdf
    ? `import { readFont } from './shared/document/font.ts';
import { pdfFloor } from './test/bench/lib/pdf-floor.ts';

// The font read and parsed at load, as the document's function does.
const render = pdfFloor(readFont());
`
    : '';
  const reply = pdf
    ? `{ statusCode: 200, headers: { 'Content-Type': 'application/pdf' }, isBase64Encoded: true, body: Buffer.from(await render()).toString('base64') }`
    : `{ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(output) }`;
  return `${pdfImports}import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ${names.map((n) => `${n}Command`).join(', ')} } from '@aws-sdk/lib-dynamodb';

// The same client configuration as shared/data/dynamo.ts.
const client = new DynamoDBClient({
  region: process.env.AWS_REGION ?? 'us-east-1',
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
  ...(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {}),
});
client.middlewareStack.remove('loggerMiddleware');
const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const commands = { ${names.map((n) => `${n}: ${n}Command`).join(', ')} };

export const handler = async (event) => {
  let output = {};
  for (const call of event.floorCalls) output = await db.send(new commands[call.command](call.input));
  return ${reply};
};
`;
}

const CONSTRUCTORS = {
  Get: GetCommand,
  BatchGet: BatchGetCommand,
  Query: QueryCommand,
  Put: PutCommand,
  Update: UpdateCommand,
  Delete: DeleteCommand,
  TransactWrite: TransactWriteCommand,
} as const;

/** The floor's calls in this process, on the functions' own client (the bare SDK call of the warm section). */
export async function runFloorCalls(calls: readonly FloorCall[]): Promise<unknown> {
  let output: unknown = {};
  for (const call of calls) {
    const Command = CONSTRUCTORS[call.command] as unknown as new (input: Record<string, unknown>) => Parameters<ReturnType<typeof dynamo>['send']>[0];
    output = await dynamo().send(new Command(call.input));
  }
  return output;
}
