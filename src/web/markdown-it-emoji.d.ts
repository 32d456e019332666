// markdown-it-emoji ships no types of its own, and the DefinitelyTyped ones are written against
// markdown-it 14's separate types, not the ones markdown-it 15 ships.
declare module 'markdown-it-emoji' {
  import type { MarkdownIt } from 'markdown-it'

  export interface EmojiOptions {
    defs?: Record<string, string>
    enabled?: string[]
    /** Text shortcuts such as `:)`; an empty object turns them all off. */
    shortcuts?: Record<string, string | string[]>
  }

  export function full(md: MarkdownIt, options?: EmojiOptions): void
}
