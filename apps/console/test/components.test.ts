// @vitest-environment jsdom (renders components)
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import ArtifactParts from '../src/components/ArtifactParts.svelte';
import ConnectionStatus from '../src/components/ConnectionStatus.svelte';
import ShortId from '../src/components/ShortId.svelte';
import TasksPanel from '../src/components/TasksPanel.svelte';
import Timeline from '../src/components/Timeline.svelte';
import TokenPrompt from '../src/components/TokenPrompt.svelte';
import { TaskList } from '../src/lib/tasks/task-list.svelte';
import { shortId } from '../src/lib/text/ids';
import { TimelineStore } from '../src/lib/timeline/timeline.svelte';
import { frame, sessionFrame, status, task } from './support/events';
import { fakeClient } from './support/fake-client';

describe('ConnectionStatus', () => {
  it('is a labelled status whose text is the state word', () => {
    render(ConnectionStatus, { props: { label: 'Session stream', state: 'reconnecting', detail: 'retry 1 in 0.5 s' } });
    const indicator = screen.getByRole('status', { name: 'Session stream' });
    expect(indicator.textContent).toBe('reconnecting');
    expect(screen.getByText(/retry 1/)).toBeTruthy();
  });

  it('a door answering 401 reads "needs a token", not lost', () => {
    render(ConnectionStatus, { props: { label: 'Door stream', state: 'needs-token' } });
    expect(screen.getByRole('status', { name: 'Door stream' }).textContent).toBe('needs a token');
  });
});

describe('Timeline', () => {
  it('renders only a window of a long timeline, and gap/lagged as alerts', () => {
    const timeline = new TimelineStore({ limits: { maxEntriesPerTask: 5000 } });
    for (let i = 0; i < 3000; i++) timeline.push(status('tsk_long', 'TASK_STATE_WORKING', `inference turn ${i}`));
    timeline.push(sessionFrame({ frame: 'lagged', dropped: 7 }));
    timeline.flush();
    const { container } = render(Timeline, { props: { timeline, door: '127.0.0.1:1', label: 'Live timeline' } });
    expect(timeline.rows.length).toBe(3001);
    const rendered = container.querySelectorAll('.virtual-row').length;
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(120);
    expect(screen.getByRole('alert').textContent).toMatch(/lost 7 events/);
    expect(screen.getByRole('region', { name: 'Live timeline' })).toBeTruthy();
  });

  it('shows a tool call with its input, output and exit code', () => {
    const timeline = new TimelineStore();
    timeline.push(frame('tsk_1', { frame: 'tool-call-started', toolCallId: 'call_1', toolName: 'bash', input: { command: 'uname -s' } }));
    timeline.push(frame('tsk_1', { frame: 'tool-call-progress', toolCallId: 'call_1', stream: 'stdout', text: 'Linux\n' }));
    timeline.push(
      frame('tsk_1', {
        frame: 'artifact',
        artifact: {
          toolName: 'bash',
          content: 'Exit code: 0',
          fenceSource: 'tool:bash',
          toolCallId: 'call_1',
          isError: false,
          durationMs: 10,
          exitCode: 0,
          truncated: false,
        },
      }),
    );
    timeline.flush();
    render(Timeline, { props: { timeline, door: '127.0.0.1:1', label: 'Live timeline' } });
    expect(screen.getByText('$ uname -s')).toBeTruthy();
    expect(screen.getByText('Linux', { exact: false })).toBeTruthy();
    expect(screen.getByText('exit 0')).toBeTruthy();
    expect(screen.getByText('10 ms')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'tsk_1' }).getAttribute('href')).toBe('#/door/127.0.0.1:1/tasks/tsk_1');
  });
});

describe('a tool call that streamed no output', () => {
  it('shows its result as its output, unfolded: a harness’s own tool reports its output once it ends', () => {
    const timeline = new TimelineStore();
    timeline.push(
      frame('tsk_1', { frame: 'tool-call-started', toolCallId: 'toolu_1', toolName: 'Bash', input: { command: 'echo hi', description: 'say hi' } }),
    );
    timeline.push(
      frame('tsk_1', {
        frame: 'artifact',
        artifact: {
          toolName: 'Bash',
          content: 'hi\u001b[0m',
          fenceSource: null,
          toolCallId: 'toolu_1',
          isError: false,
          durationMs: 12,
          exitCode: null,
          truncated: false,
        },
      }),
    );
    timeline.flush();
    render(Timeline, { props: { timeline, door: '127.0.0.1:1', label: 'Live timeline' } });
    // What the harness reported, its control characters escaped, and no fold repeating it.
    expect(screen.getByLabelText('output', { exact: true }).textContent).toBe('hi\\u001b[0m');
    expect(screen.queryByText('What the model saw')).toBeNull();
    expect(screen.getByText('done')).toBeTruthy();
  });
});

describe('TokenPrompt', () => {
  it('saves a pasted token (Bearer prefix removed) on submit', async () => {
    const onsave = vi.fn();
    render(TokenPrompt, { props: { door: '127.0.0.1:1', problem: null, hasToken: false, onsave, onforget: () => {} } });
    expect(screen.getByRole('heading', { name: 'This door needs a token' })).toBeTruthy();
    await fireEvent.input(screen.getByLabelText('Token'), { target: { value: ' Bearer mur_abc ' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save token' }));
    expect(onsave).toHaveBeenCalledWith('mur_abc');
  });

  it('asks again for an empty token', async () => {
    const onsave = vi.fn();
    render(TokenPrompt, { props: { door: '127.0.0.1:1', problem: null, hasToken: false, onsave, onforget: () => {} } });
    await fireEvent.click(screen.getByRole('button', { name: 'Save token' }));
    expect(onsave).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toMatch(/mur token/);
  });
});

describe('TasksPanel', () => {
  it('lists tasks in a table with column headers, state labels and paging', async () => {
    const { client } = fakeClient();
    client.listTasks
      .mockResolvedValueOnce({
        tasks: [task('tsk_a', 'TASK_STATE_FAILED'), task('tsk_b', 'TASK_STATE_COMPLETED')],
        nextPageToken: 'p2',
        pageSize: 2,
        totalSize: 3,
      })
      .mockResolvedValueOnce({ tasks: [task('tsk_c', 'TASK_STATE_WORKING')], nextPageToken: '', pageSize: 1, totalSize: 3 });
    const tasks = new TaskList(() => client);
    await tasks.load();
    render(TasksPanel, { props: { tasks, door: '127.0.0.1:1' } });
    const table = screen.getByRole('table', { name: 'Tasks' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Compare', 'State', 'Input', 'Task', 'Status message', 'Context', 'Changed']);
    expect(within(table).getByText('failed')).toBeTruthy();
    expect(within(table).getByText('completed')).toBeTruthy();
    expect(screen.getByText(/of 3 in total/)).toBeTruthy();
    const previous = screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement;
    expect(previous.disabled).toBe(true);
    await fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await vi.waitFor(() => expect(within(table).getByText('working')).toBeTruthy());
    expect(previous.disabled).toBe(false);
  });

  it('picks two tasks to compare from the table, linking to their comparison (docs/console.md, "Compare two runs")', async () => {
    const { client } = fakeClient();
    client.listTasks.mockResolvedValue({
      tasks: [task('tsk_a', 'TASK_STATE_COMPLETED'), task('tsk_b', 'TASK_STATE_COMPLETED')],
      nextPageToken: '',
      pageSize: 2,
      totalSize: 2,
    });
    const tasks = new TaskList(() => client);
    await tasks.load();
    render(TasksPanel, { props: { tasks, door: '127.0.0.1:1' } });
    expect(screen.queryByRole('link', { name: 'Compare the picked tasks' })).toBeNull();
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Compare tsk_a' }));
    expect(screen.getByText(/pick one more/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Compare tsk_b' }));
    expect(screen.getByRole('link', { name: 'Compare the picked tasks' }).getAttribute('href')).toBe('#/compare/tsk_a/tsk_b');
    await fireEvent.click(screen.getByRole('button', { name: 'Clear picks' }));
    expect(screen.queryByRole('link', { name: 'Compare the picked tasks' })).toBeNull();
    expect((screen.getByRole('checkbox', { name: 'Compare tsk_a' }) as HTMLInputElement).checked).toBe(false);
  });

  it('applies the filters on submit, from the first page', async () => {
    const { client } = fakeClient();
    client.listTasks.mockResolvedValue({ tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
    const tasks = new TaskList(() => client);
    render(TasksPanel, { props: { tasks, door: '127.0.0.1:1' } });
    await fireEvent.change(screen.getByLabelText('Filter by state'), { target: { value: 'TASK_STATE_INPUT_REQUIRED' } });
    await fireEvent.input(screen.getByLabelText('Filter by context id'), { target: { value: 'ctx_9' } });
    await fireEvent.submit(screen.getByRole('form', { name: 'Task filters' }));
    await vi.waitFor(() => expect(client.listTasks).toHaveBeenCalled());
    expect(client.listTasks.mock.lastCall?.[0]).toEqual({ pageSize: 25, status: 'TASK_STATE_INPUT_REQUIRED', contextId: 'ctx_9' });
    expect(screen.getByText('No tasks match.')).toBeTruthy();
  });
});

describe('ShortId', () => {
  const id = 'tsk_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b';

  it('keeps the prefix and the last 8 digits in sight, the whole id in its text, its name and its title', () => {
    expect(shortId(id)).toEqual({ head: 'tsk_', hidden: '0193a1b2c3d47e8f9a0b1c2d', tail: '3e4f5a6b' });
    expect(shortId('tsk_1')).toEqual({ head: 'tsk_1', hidden: '', tail: '' });
    render(ShortId, { props: { id, href: '#/door/127.0.0.1:1/tasks/x' } });
    const link = screen.getByRole('link', { name: id });
    expect(link.textContent).toBe(id);
    expect(link.getAttribute('title')).toBe(id);
    expect(link.querySelector('.id-middle')?.textContent).toBe('0193a1b2c3d47e8f9a0b1c2d');
    expect(link.querySelector('.id-tail')?.textContent).toBe('3e4f5a6b');
  });

  it('copies the whole id', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(ShortId, { props: { id } });
    await fireEvent.click(screen.getByRole('button', { name: `Copy ${id}` }));
    expect(writeText).toHaveBeenCalledWith(id);
    await vi.waitFor(() => expect(screen.getByRole('button', { name: `Copied ${id}` })).toBeTruthy());
  });
});

describe('ArtifactParts', () => {
  it("links a part's http(s) URL only: a javascript: or data: URL a caller or a peer sent is shown, not linked", () => {
    const { container } = render(ArtifactParts, {
      props: {
        parts: [
          { url: 'javascript:alert(document.cookie)', filename: 'notes.txt' },
          { url: 'data:text/html,<script>alert(1)</script>' },
          { url: 'https://files.example.test/report.pdf', filename: 'report.pdf', mediaType: 'application/pdf' },
        ],
      },
    });
    const links = [...container.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://files.example.test/report.pdf']);
    expect(links[0].textContent).toBe('report.pdf');
    expect(container.textContent).toContain('javascript:alert(document.cookie)');
    expect(container.textContent).toContain('(not a web address: shown, not linked)');
  });
});
