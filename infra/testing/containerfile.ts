// What a Containerfile's final stage runs: its WORKDIR, ENV, USER and the exec-form ENTRYPOINT +
// CMD, read with dockerfile-ast (the parser behind the Dockerfile language server).
import { readFile } from 'node:fs/promises';
import { DockerfileParser, type Instruction, JSONInstruction, Env } from 'dockerfile-ast';

export interface FinalStage {
  /** Every FROM image of the file, build stages included. */
  images: string[];
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  /** ENTRYPOINT followed by CMD, as the container starts. */
  command: string[];
}

function jsonArgs(instruction: Instruction | undefined, what: string): string[] {
  if (instruction === undefined) return [];
  if (!(instruction instanceof JSONInstruction) || instruction.getJSONStrings().length === 0) {
    throw new Error(`${what} must be in exec form (a JSON array), so no shell sits in between`);
  }
  return instruction.getJSONStrings().map((s) => s.getJSONValue());
}

export async function readFinalStage(path: string): Promise<FinalStage> {
  const file = DockerfileParser.parse(await readFile(path, 'utf8'));
  const froms = file.getFROMs();
  const images = froms.map((from) => from.getArguments()[0]?.getValue() ?? '');
  const last = froms.at(-1);
  if (last === undefined) throw new Error(`${path} has no FROM`);
  const stageStart = last.getRange().start.line;
  const stage = file.getInstructions().filter((i) => i.getRange().start.line >= stageStart);
  const lastOf = (keyword: string) => stage.filter((i) => i.getKeyword() === keyword).at(-1);
  const env: Record<string, string> = {};
  for (const instruction of stage) {
    if (!(instruction instanceof Env)) continue;
    for (const property of instruction.getProperties()) {
      env[property.getName()] = property.getValue() ?? '';
    }
  }
  return {
    images,
    workdir: lastOf('WORKDIR')?.getArgumentsContent() ?? '/',
    env,
    user: lastOf('USER')?.getArgumentsContent() ?? undefined,
    command: [...jsonArgs(lastOf('ENTRYPOINT'), 'ENTRYPOINT'), ...jsonArgs(lastOf('CMD'), 'CMD')],
  };
}

/** One stage of a Containerfile: its FROM image and its instructions' keywords and arguments. */
export interface Stage {
  image: string;
  instructions: Array<{ keyword: string; args: string[] }>;
}

/** Every stage of the Containerfile at `path`, in order. */
export async function readStages(path: string): Promise<Stage[]> {
  const file = DockerfileParser.parse(await readFile(path, 'utf8'));
  const stages: Stage[] = [];
  for (const instruction of file.getInstructions()) {
    const keyword = instruction.getKeyword();
    const args = instruction.getArguments().map((a) => a.getValue());
    if (keyword === 'FROM') stages.push({ image: args[0] ?? '', instructions: [] });
    else stages.at(-1)?.instructions.push({ keyword, args });
  }
  return stages;
}
