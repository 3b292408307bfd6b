/**
 * The five stacks of an environment (infra/stack.ts) seen as one template, for assertions that
 * follow a reference from one stack to another (a method to its function's alias, an alarm to its
 * function): each cross-stack reference (`Fn::GetStackOutput` of an output the producer publishes)
 * is replaced by the producer's value, and the published outputs are dropped. Logical ids are
 * unique across the stacks (the merge refuses a clash), so `{ Ref: id }` still names one resource.
 * Which stack holds what is asserted on the real templates (stack.test.ts, "stacks").
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { STACK_ROLES, type StackRole, type TimebillApi } from '../../../infra/stack.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Outputs CDK adds to a producer stack for its cross-stack references. */
export const isPublished = (outputName: string) => outputName.startsWith('PublishOutput');

/** Each stack's template, by role. */
export function templatesOf(service: TimebillApi): Record<StackRole, Json> {
  return Object.fromEntries(STACK_ROLES.map((role) => [role, Template.fromStack(service.stacks[role]).toJSON()])) as Record<StackRole, Json>;
}

/** Merges the templates of `stacks` into one, resolving the references between them. */
export function mergeTemplates(stacks: readonly Stack[]): Json {
  return mergeJson(stacks.map((stack) => ({ name: stack.resolve(stack.stackName) as string, template: Template.fromStack(stack).toJSON() })));
}

/** The same, on templates as JSON with their stack names. */
function mergeJson(stacks: readonly { name: string; template: Json }[]): Json {
  const byName = new Map(stacks.map((s) => [s.name, s.template]));
  const resolveRefs = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolveRefs);
    if (value === null || typeof value !== 'object') return value;
    const ref = value['Fn::GetStackOutput'];
    if (ref) {
      const producer = byName.get(ref.StackName);
      const output = producer?.Outputs?.[ref.OutputName];
      if (!output) throw new Error(`Unresolved cross-stack reference ${JSON.stringify(ref)}`);
      return resolveRefs(output.Value);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v)]));
  };
  const merged: Json = { Resources: {}, Outputs: {} };
  for (const [name, template] of byName) {
    for (const [id, resource] of Object.entries<Json>(template.Resources ?? {})) {
      if (id in merged.Resources) throw new Error(`Logical id ${id} is in two stacks (${name} and another)`);
      merged.Resources[id] = resolveRefs(resource);
    }
    for (const [id, output] of Object.entries<Json>(template.Outputs ?? {})) {
      if (!isPublished(id)) merged.Outputs[id] = resolveRefs(output);
    }
  }
  return merged;
}

/** The environment's stacks as one Template (see above). */
export const environmentTemplate = (service: TimebillApi): Template =>
  Template.fromJSON(mergeTemplates(Object.values(service.stacks)));

/** Which stack (role) holds a logical id. */
export function stackRoleOf(service: TimebillApi, logicalId: string): StackRole | undefined {
  const templates = templatesOf(service);
  return STACK_ROLES.find((role) => logicalId in (templates[role].Resources ?? {}));
}

/** One synthesized stack, as the cloud assembly holds it. */
export interface AssemblyStack {
  /** Its role: the construct id under the environment's Stage (Data, Functions, Api, Operations). */
  readonly role: StackRole;
  readonly stackName: string;
  readonly template: Json;
  readonly terminationProtection: boolean;
  readonly account: string;
  readonly region: string;
  /** Roles of the stacks it depends on. */
  readonly dependsOn: readonly StackRole[];
  /** Path of its template file. */
  readonly templateFile: string;
  /** Construct path: `<environment>/<role>`. */
  readonly path: string;
}

/** Each environment's stacks from the assembly of test/infra/support/assembly.ts, by environment and role. */
export function readAssembly(directory: string): Map<string, Record<StackRole, AssemblyStack>> {
  const assembly = new CloudAssembly(directory);
  const environments = new Map<string, Record<StackRole, AssemblyStack>>();
  for (const nested of assembly.nestedAssemblies) {
    const stage = nested.nestedAssembly;
    const byArtifact = new Map(stage.stacks.map((s) => [s.id, s]));
    const roleOf = (artifactId: string) => byArtifact.get(artifactId)!.hierarchicalId.split('/').at(-1) as StackRole;
    const stacks = Object.fromEntries(
      stage.stacks.map((s) => [
        roleOf(s.id),
        {
          role: roleOf(s.id),
          stackName: s.stackName,
          template: s.template,
          terminationProtection: s.terminationProtection ?? false,
          account: s.environment.account,
          region: s.environment.region,
          dependsOn: s.dependencies.filter((d) => byArtifact.has(d.id)).map((d) => roleOf(d.id)),
          templateFile: s.templateFullPath,
          path: s.hierarchicalId,
        },
      ]),
    ) as unknown as Record<StackRole, AssemblyStack>;
    environments.set(nested.id.replace(/^assembly-/, ''), stacks);
  }
  return environments;
}

/** An environment's stacks from the assembly, merged as mergeTemplates does. */
export function mergedFromAssembly(stacks: Record<StackRole, AssemblyStack>): Json {
  return mergeJson(STACK_ROLES.map((role) => ({ name: stacks[role].stackName, template: stacks[role].template })));
}
