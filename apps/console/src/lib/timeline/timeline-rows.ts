/** The rows a timeline shows: immutable snapshots, one object per row, replaced (never mutated) when they change. */
import type { Artifact, JsonValue, TaskState, ToolArtifactFrameFields } from '@murmur/protocol';

/** The header row of a task in a timeline (not the door store's TaskRow entity). */
export interface TaskHeaderRow {
  kind: 'task';
  key: string;
  taskId: string;
  contextId: string | null;
  state: TaskState | null;
  /** The last status message's text (`inference turn 2`, the prompt, why it failed). */
  statusText: string | null;
  firstAt: string | null;
  lastAt: string | null;
  entryCount: number;
  collapsed: boolean;
}

interface StatusEntry {
  kind: 'status';
  key: string;
  taskId: string;
  state: TaskState;
  text: string | null;
  at: string | null;
}

export interface TextEntry {
  kind: 'text' | 'thinking';
  key: string;
  taskId: string;
  text: string;
  /** Characters dropped from the start to keep the block bounded. */
  omitted: number;
  /** A text block ends with its `final` chunk; a thinking block when anything else of the task arrives. */
  done: boolean;
  at: string | null;
}

interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface ToolEntry {
  kind: 'tool';
  key: string;
  taskId: string;
  toolCallId: string | null;
  toolName: string;
  input: JsonValue | null;
  output: OutputChunk[];
  /** Output characters dropped from the start. */
  omitted: number;
  /** The artifact frame that ends the call: exit code, duration, content, whether it failed. */
  result: ToolArtifactFrameFields | null;
  at: string | null;
}

export interface ArtifactEntry {
  kind: 'artifact';
  key: string;
  taskId: string;
  artifact: Artifact;
  at: string | null;
}

interface NoteEntry {
  kind: 'note';
  key: string;
  taskId: string;
  text: string;
  at: string | null;
}

export type Entry = StatusEntry | TextEntry | ToolEntry | ArtifactEntry | NoteEntry;

/** A task's entries begin after some were dropped. */
interface MoreRow {
  kind: 'more';
  key: string;
  taskId: string;
  omitted: number;
}

export type TimelineRow = TaskHeaderRow | Entry | MoreRow;

/** gap and lagged: events this connection may have lost. Shown as alerts until dismissed. */
export interface Banner {
  key: string;
  kind: 'gap' | 'lagged';
  text: string;
  atMs: number;
}
