import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { ChatMessage, ChatRole, ChatThreadSummary } from "../../domain/Chat.ts"
import type { CustomerId } from "../../domain/Ids.ts"

interface ThreadRow {
  readonly id: string
  readonly title: string
  readonly messageCount: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

interface MessageRow {
  readonly id: string
  readonly role: ChatRole
  readonly content: string
  readonly createdAt: Date
}

const toSummary = (row: ThreadRow): ChatThreadSummary => ({
  threadId: row.id,
  title: row.title,
  createdAt: new Date(row.createdAt).toISOString(),
  updatedAt: new Date(row.updatedAt).toISOString(),
  messageCount: Number(row.messageCount)
})

const toMessage = (row: MessageRow): ChatMessage => ({
  messageId: row.id,
  role: row.role,
  content: row.content,
  createdAt: new Date(row.createdAt).toISOString()
})

/** Chat threads and their messages (migration 0080). Every read is scoped by the customer. */
export class ChatRepo extends Context.Service<ChatRepo, {
  /** A new thread holding the user's first message (one statement); answers its id. */
  readonly start: (customerId: CustomerId, title: string, message: string) => Effect.Effect<string>
  readonly find: (customerId: CustomerId, threadId: string) => Effect.Effect<ChatThreadSummary | undefined>
  /** Appends a message (the thread's count and `updatedAt` move with it, in one transaction). */
  readonly append: (threadId: string, role: ChatRole, content: string) => Effect.Effect<ChatMessage>
  /** The latest `limit` messages, oldest first. */
  readonly messages: (threadId: string, limit: number) => Effect.Effect<ReadonlyArray<ChatMessage>>
  readonly list: (customerId: CustomerId, limit: number) => Effect.Effect<ReadonlyArray<ChatThreadSummary>>
}>()("herald/features/chat/ChatRepo") {
  static readonly layer = Layer.effect(
    ChatRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const threadColumns = sql.unsafe("id, title, message_count, created_at, updated_at")
      return ChatRepo.of({
        find: (customerId, threadId) =>
          sql<
            ThreadRow
          >`SELECT ${threadColumns} FROM chat_threads WHERE id = ${threadId} AND customer_id = ${customerId}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : toSummary(rows[0]))),
            Effect.orDie
          ),
        append: (threadId, role, content) => {
          // One statement: the count moves and the message takes its place atomically, in one round trip.
          const id = `msg_${randomUUID().replaceAll("-", "")}`
          return sql<MessageRow>`WITH counted AS (
            UPDATE chat_threads SET message_count = message_count + 1, updated_at = now()
            WHERE id = ${threadId} RETURNING message_count
          )
          INSERT INTO chat_messages (id, thread_id, seq, role, content)
          SELECT ${id}, ${threadId}, message_count, ${role}, ${content} FROM counted
          RETURNING id, role, content, created_at`.pipe(Effect.map((rows) => toMessage(rows[0]!)), Effect.orDie)
        },
        start: (customerId, title, message) => {
          const threadId = `thr_${randomUUID().replaceAll("-", "")}`
          const id = `msg_${randomUUID().replaceAll("-", "")}`
          return sql`WITH thread AS (
            INSERT INTO chat_threads (id, customer_id, title, message_count) VALUES (${threadId}, ${customerId}, ${title}, 1)
            RETURNING id
          )
          INSERT INTO chat_messages (id, thread_id, seq, role, content)
          SELECT ${id}, id, 1, 'user', ${message} FROM thread`.pipe(Effect.as(threadId), Effect.orDie)
        },
        messages: (threadId, limit) =>
          sql<MessageRow>`SELECT id, role, content, created_at FROM (
            SELECT id, role, content, created_at, seq FROM chat_messages WHERE thread_id = ${threadId}
            ORDER BY seq DESC LIMIT ${limit}
          ) latest ORDER BY seq`.pipe(Effect.map((rows) => rows.map(toMessage)), Effect.orDie),
        list: (customerId, limit) =>
          sql<ThreadRow>`SELECT ${threadColumns} FROM chat_threads WHERE customer_id = ${customerId}
          ORDER BY updated_at DESC, id DESC LIMIT ${limit}`.pipe(
            Effect.map((rows) => rows.map(toSummary)),
            Effect.orDie
          )
      })
    })
  )
}
