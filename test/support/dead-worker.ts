// A page pool worker that can never start (as when the machine has no room for another process).
process.exit(1)
