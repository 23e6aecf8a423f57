-- Clicks are counted in memory and written as one row per link, bot flag and
-- flush interval with its count, rather than one row per click: a busy link
-- costs the database a row a second, not a row a click.
ALTER TABLE link_clicks ADD COLUMN clicks INTEGER NOT NULL DEFAULT 1 CHECK (clicks > 0);
