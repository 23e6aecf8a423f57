/**
 * The first bytes of every server-sent event stream. Node sends a response's
 * headers with its first body write, so a stream whose first event is a
 * model's answer or a keep-alive seconds away leaves the client waiting for
 * its status line; a comment at once lets it see the stream open (event
 * parsers skip comments).
 */
export const openingComment = ": open\n\n"

/**
 * A web Response whose event stream starts with `openingComment`; any other
 * response as it is. `onEnd` runs once when the response is over: at once for
 * a plain body, when the stream ends or its reader goes away for a stream.
 */
export const openedAtOnce = (response: Response, onEnd: () => void = () => {}): Response => {
  const body = response.body
  if (body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    onEnd()
    return response
  }
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    onEnd()
  }
  const opening = new TextEncoder().encode(openingComment)
  const reader = body.getReader()
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(opening),
    pull: async (controller) => {
      const read = await reader.read().catch((error: unknown) => {
        end()
        throw error
      })
      if (read.done) {
        end()
        controller.close()
      } else controller.enqueue(read.value)
    },
    cancel: (reason) => {
      end()
      return reader.cancel(reason)
    }
  })
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers })
}
