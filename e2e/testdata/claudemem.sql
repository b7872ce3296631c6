-- claude-mem rows for the e2e session, as claude-mem 13.25 would have written
-- them after the first turn. A text/template: .Session is the session id
-- Claude Code assigned, .Prompt the first prompt (SQL-quoted), .Project the
-- project name, .PromptAt and .Now epochs in milliseconds.
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status, prompt_counter) VALUES
 (1, '{{.Session}}', 'mem-{{.Session}}', '{{.Project}}', 'claude', {{.Prompt}}, 'x', {{.PromptAt}}, 'active', 1);

INSERT INTO user_prompts (id, session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch) VALUES
 (1, 1, '{{.Session}}', 1, {{.Prompt}}, 'x', {{.PromptAt}});

INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (880001, 'mem-{{.Session}}', '{{.Project}}', NULL, 'discovery', 'Plan read: parser comes first',
  'plan.md orders the work', '["OBS-FACT-880001: the parser is step one"]',
  'The plan in plan.md says the parser is written first. OBS-NARRATIVE-880001 everything else waits on it.',
  '["how-it-works"]', '["plan.md"]', '[]', 1, 'x', {{.Now}}, 'e2e-880001');

INSERT INTO session_summaries (id, memory_session_id, project, request, investigated, learned, completed, next_steps,
  notes, prompt_number, created_at, created_at_epoch) VALUES
 (1, 'mem-{{.Session}}', '{{.Project}}', 'Find the first step of the plan', 'plan.md', 'The parser comes first',
  'Read the plan', 'Write the parser', NULL, 1, 'x', {{.Now}});
