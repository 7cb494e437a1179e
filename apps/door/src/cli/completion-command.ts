import { COMMANDS, usageOf } from './command-help.js';
import { COMPLETION_USAGE } from './completion-usage.js';
import { UsageError } from './usage-error.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** Each command's flags, read from its own usage, so completion and --help never disagree. */
async function flagsByCommand(): Promise<Map<string, string[]>> {
  const flags = new Map<string, string[]>();
  for (const command of COMMANDS) {
    const usage = (await usageOf(command, [])) ?? '';
    const found = new Set(usage.match(/--[a-z][a-z-]*/g) ?? []);
    if (command === 'run') for (const flag of (await usageOf('run', ['--roster']))?.match(/--[a-z][a-z-]*/g) ?? []) found.add(flag);
    flags.set(command, [...found, '--help']);
  }
  return flags;
}

function bash(flags: Map<string, string[]>): string {
  const cases = [...flags].map(([command, list]) => `    ${command}) opts="${list.join(' ')}" ;;`).join('\n');
  return `# mur completion for bash: eval "$(mur completion bash)"
_mur() {
  local cur=\${COMP_WORDS[COMP_CWORD]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${COMMANDS.join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _mur mur
`;
}

function zsh(flags: Map<string, string[]>): string {
  const cases = [...flags].map(([command, list]) => `    ${command}) compadd -- ${list.join(' ')} ;;`).join('\n');
  return `# mur completion for zsh: eval "$(mur completion zsh)" (after compinit)
_mur() {
  if (( CURRENT == 2 )); then
    compadd -- ${COMMANDS.join(' ')} --help --version
    return
  fi
  if [[ $PREFIX == -* ]]; then
    case $words[2] in
${cases}
    esac
  else
    _files
  fi
}
compdef _mur mur
`;
}

function fish(flags: Map<string, string[]>): string {
  const lines = [`# mur completion for fish: mur completion fish | source`, 'complete -c mur -f'];
  for (const command of COMMANDS) lines.push(`complete -c mur -n '__fish_use_subcommand' -a ${command}`);
  lines.push(`complete -c mur -n '__fish_use_subcommand' -l version -d 'print the version'`);
  for (const [command, list] of flags) {
    for (const flag of list) lines.push(`complete -c mur -n '__fish_seen_subcommand_from ${command}' -l ${flag.slice(2)}`);
  }
  lines.push(`complete -c mur -n '__fish_seen_subcommand_from run' -F`);
  return `${lines.join('\n')}\n`;
}

/** mur completion SHELL: prints the shell's completion script. */
export async function completion(argv: string[], out: (text: string) => void): Promise<number> {
  const shell = argv[0];
  if (argv.length !== 1 || !SHELLS.includes(shell as Shell)) throw new UsageError(`mur completion takes one shell: bash, zsh or fish\n${COMPLETION_USAGE}`);
  const flags = await flagsByCommand();
  out({ bash, zsh, fish }[shell as Shell](flags));
  return 0;
}
