--
-- PostgreSQL database dump
--

\restrict 6U7HQioWPQjwIAaKNKcUer3YLG83zYv98lyFiICgqFeVttqUp1jHgriF2FTyxyS

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: legacy; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA legacy;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: correx_events; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_events (
    "position" bigint NOT NULL,
    session_key bytea NOT NULL,
    sequence bigint NOT NULL,
    recorded_at timestamp with time zone NOT NULL,
    type text NOT NULL,
    version integer NOT NULL,
    data text NOT NULL,
    CONSTRAINT correx_events_sequence_check CHECK ((sequence >= 1))
);


--
-- Name: correx_events_position_seq; Type: SEQUENCE; Schema: legacy; Owner: -
--

ALTER TABLE legacy.correx_events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME legacy.correx_events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: correx_invocations; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_invocations (
    invocation_key bytea NOT NULL,
    invocation_id bytea NOT NULL,
    session_key bytea NOT NULL,
    sequence bigint NOT NULL,
    CONSTRAINT correx_invocations_invocation_key_check CHECK ((octet_length(invocation_key) = 32))
);


--
-- Name: correx_sessions; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_sessions (
    session_key bytea NOT NULL,
    session_id bytea NOT NULL,
    last_sequence bigint NOT NULL,
    CONSTRAINT correx_sessions_last_sequence_check CHECK ((last_sequence >= 0)),
    CONSTRAINT correx_sessions_session_key_check CHECK ((octet_length(session_key) = 32))
);


--
-- Data for Name: correx_events; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (1, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 1, '2026-11-30 12:00:01+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-1","request":{"arguments":{"path":"README.md"},"tool_name":"read_file"},"tier":"auto","tool_name":"read_file"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (2, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 2, '2026-11-30 12:00:02+00', 'tool.execution.started', 1, '{"invocation_id":"a-1"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (3, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 3, '2026-11-30 12:00:03+00', 'tool.execution.completed', 1, '{"invocation_id":"a-1","receipt":{"exit_code":0,"metadata":{"cwd":"/repo"},"output":{"bytes":120}}}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (4, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 4, '2026-11-30 12:00:04+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-2","request":{"arguments":{"path":"src/app.py","text":"print(''hi'')\n"},"tool_name":"write_file"},"tier":"confirm","tool_name":"write_file"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (5, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 5, '2026-11-30 12:00:05+00', 'tool.execution.rejected', 1, '{"invocation_id":"a-2","reason":"the user declined"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (6, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 6, '2026-11-30 12:00:06+00', 'chat.message', 1, '{"role":"user","text":"fix the tests"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (7, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 7, '2026-11-30 12:00:07+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-3","request":{"arguments":{"target":"tests/"},"tool_name":"run_tests"},"tier":"confirm","tool_name":"run_tests"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (8, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 8, '2026-11-30 12:00:08+00', 'tool.execution.started', 1, '{"invocation_id":"a-3"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (9, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 9, '2026-11-30 12:00:09+00', 'tool.execution.failed', 1, '{"invocation_id":"a-3","reason":"2 tests failed","recoverable":true}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (10, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 10, '2026-11-30 12:00:10+00', 'tool.execution.started', 1, '{"invocation_id":"a-3"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (11, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 11, '2026-11-30 12:00:11+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-4","request":{"arguments":{"path":"docs/index.md"},"tool_name":"read_file"},"tier":"auto","tool_name":"read_file"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (12, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 12, '2026-11-30 12:00:12+00', 'tool.execution.started', 1, '{"invocation_id":"a-4"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (13, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 1, '2026-11-30 12:00:01+00', 'tool.invocation.requested', 1, '{"invocation_id":"b-1","request":{"arguments":{"command":"ls -la"},"tool_name":"shell"},"tier":"confirm","tool_name":"shell"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (14, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 2, '2026-11-30 12:00:02+00', 'tool.execution.started', 1, '{"invocation_id":"b-1"}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (15, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 3, '2026-11-30 12:00:03+00', 'tool.execution.completed', 1, '{"invocation_id":"b-1","receipt":{"exit_code":0,"metadata":{},"output":"total 8\n"}}');
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (16, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 4, '2026-11-30 12:00:04+00', 'tool.execution.failed', 1, '{"invocation_id":"b-unknown","reason":"never requested","recoverable":false}');


--
-- Data for Name: correx_invocations; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_invocations VALUES ('\x2f8fe63a6224321de5d0a24cf30067d37a358706b1ed38b015282ab68dc69ae9', '\x612d31', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 1);
INSERT INTO legacy.correx_invocations VALUES ('\xd72e654c3645b02dde39fe0be595ef173409544f6e10ea1164759d6c284dbade', '\x612d32', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 4);
INSERT INTO legacy.correx_invocations VALUES ('\x2cb72cc6837572f49baf91e463c75685f5befc1a4fc1bc8533a7f5619ef2c34f', '\x612d33', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 7);
INSERT INTO legacy.correx_invocations VALUES ('\x3889ba3ba2382edc3761429c144cb1705f4cd19353d7431abfaa882bc8c67f3b', '\x612d34', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 11);
INSERT INTO legacy.correx_invocations VALUES ('\x3e499e752620c6a90ed59a200a18132411045ba50ea06c76673ecd53298e5151', '\x622d31', '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 1);


--
-- Data for Name: correx_sessions; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_sessions VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', '\x6c65676163792d73657373696f6e2d61', 12);
INSERT INTO legacy.correx_sessions VALUES ('\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', '\x6c65676163792d73657373696f6e2d62', 4);


--
-- Name: correx_events_position_seq; Type: SEQUENCE SET; Schema: legacy; Owner: -
--

SELECT pg_catalog.setval('legacy.correx_events_position_seq', 16, true);


--
-- Name: correx_events correx_events_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_events
    ADD CONSTRAINT correx_events_pkey PRIMARY KEY ("position");


--
-- Name: correx_events correx_events_session_key_sequence_key; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_events
    ADD CONSTRAINT correx_events_session_key_sequence_key UNIQUE (session_key, sequence);


--
-- Name: correx_invocations correx_invocations_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_invocations
    ADD CONSTRAINT correx_invocations_pkey PRIMARY KEY (invocation_key);


--
-- Name: correx_sessions correx_sessions_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_sessions
    ADD CONSTRAINT correx_sessions_pkey PRIMARY KEY (session_key);


--
-- PostgreSQL database dump complete
--

\unrestrict 6U7HQioWPQjwIAaKNKcUer3YLG83zYv98lyFiICgqFeVttqUp1jHgriF2FTyxyS

