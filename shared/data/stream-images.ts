/**
 * The table's change stream hands an item's keys and images in DynamoDB's typed attribute
 * values; the code above data/ reads them as the document client reads items.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** An item's keys or image in a stream record, as DynamoDB writes it. */
export type StreamImage = Record<string, AttributeValue>;

/** The item an image holds, its values plain (as the document client reads an item). */
export const itemOfImage = (image: StreamImage): Record<string, unknown> => unmarshall(image);
