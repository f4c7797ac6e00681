-- Files: where each upload is used. A page's icon or cover, or a block of its content, that
-- names an upload adds a row, so that a token that can read the page may download the file
-- (GET /v2/files/download-url) without scanning any content. Rows are only added: a use that
-- was later edited away still lets readers of that page download the file, as a copy of its
-- URL would.

-- +goose Up
CREATE TABLE file_uses (
    file_id TEXT NOT NULL,
    page_id TEXT NOT NULL,
    PRIMARY KEY (file_id, page_id)
);

-- +goose Down
DROP TABLE file_uses;
