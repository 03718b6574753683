--
-- PostgreSQL database dump
--

\restrict LuSCdfT8DNNIUdO7vbd2pDUBfmgimePriI2TkJqMGYjJdF1MQbcgYbaY7thySi1

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


--
-- Name: correx_mark_stale(); Type: FUNCTION; Schema: legacy; Owner: -
--

CREATE FUNCTION legacy.correx_mark_stale() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                UPDATE "legacy".correx_session_heads SET stale = true
                WHERE session_key = OLD.session_key;
                RETURN OLD;
            END IF;
            IF TG_OP = 'UPDATE' THEN
                UPDATE "legacy".correx_session_heads SET stale = true
                WHERE session_key IN (OLD.session_key, NEW.session_key);
            ELSE
                UPDATE "legacy".correx_session_heads SET stale = true
                WHERE session_key = NEW.session_key;
            END IF;
            RETURN NEW;
        END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: correx_checkpoints; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_checkpoints (
    session_key bytea NOT NULL,
    sequence bigint NOT NULL,
    requested bigint NOT NULL,
    started bigint NOT NULL,
    completed bigint NOT NULL,
    failed bigint NOT NULL,
    rejected bigint NOT NULL,
    refused bigint NOT NULL,
    chain bigint NOT NULL,
    seal bigint NOT NULL
);


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
    kind smallint,
    invocation_id bytea,
    label bytea,
    code bigint,
    effect smallint,
    chain bigint,
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
    status smallint,
    requested_at timestamp with time zone,
    started_seq bigint,
    ended_seq bigint,
    tool_name bytea,
    tier smallint,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    end_label bytea,
    end_code bigint,
    seal bigint,
    request_crc bigint,
    end_crc bigint,
    request_chain bigint,
    end_chain bigint,
    CONSTRAINT correx_invocations_invocation_key_check CHECK ((octet_length(invocation_key) = 32))
);


--
-- Name: correx_session_heads; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_session_heads (
    session_key bytea NOT NULL,
    indexed_through bigint NOT NULL,
    requested bigint NOT NULL,
    started bigint NOT NULL,
    completed bigint NOT NULL,
    failed bigint NOT NULL,
    rejected bigint NOT NULL,
    refused bigint NOT NULL,
    chain bigint NOT NULL,
    stale boolean DEFAULT false NOT NULL,
    seal bigint
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
-- Name: correx_settings; Type: TABLE; Schema: legacy; Owner: -
--

CREATE TABLE legacy.correx_settings (
    name text NOT NULL,
    value bigint NOT NULL
);


--
-- Data for Name: correx_checkpoints; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_checkpoints VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 4, 1, 0, 1, 0, 0, 0, 3804004881, 1722711029);
INSERT INTO legacy.correx_checkpoints VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 8, 0, 1, 1, 0, 1, 0, 1189428376, 2215818987);
INSERT INTO legacy.correx_checkpoints VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 12, 0, 1, 1, 1, 1, 1, 3479462072, 3801848817);
INSERT INTO legacy.correx_checkpoints VALUES ('\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 4, 0, 0, 1, 0, 0, 1, 3077090005, 582661483);


--
-- Data for Name: correx_events; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (1, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 1, '2026-11-30 12:00:01+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-1","request":{"arguments":{"path":"README.md"},"tool_name":"read_file"},"tier":"auto","tool_name":"read_file"}', 1, '\x612d31', '\x726561645f66696c65', 0, 1, 1270334905);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (2, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 2, '2026-11-30 12:00:02+00', 'tool.execution.started', 1, '{"invocation_id":"a-1"}', 2, '\x612d31', NULL, NULL, 12, 2286159626);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (3, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 3, '2026-11-30 12:00:03+00', 'tool.execution.completed', 1, '{"invocation_id":"a-1","receipt":{"exit_code":0,"metadata":{"cwd":"/repo"},"output":{"bytes":120}}}', 3, '\x612d31', NULL, 0, 23, 2208762955);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (4, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 4, '2026-11-30 12:00:04+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-2","request":{"arguments":{"path":"src/app.py","text":"print(''hi'')\n"},"tool_name":"write_file"},"tier":"confirm","tool_name":"write_file"}', 1, '\x612d32', '\x77726974655f66696c65', 1, 1, 3804004881);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (5, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 5, '2026-11-30 12:00:05+00', 'tool.execution.rejected', 1, '{"invocation_id":"a-2","reason":"the user declined"}', 5, '\x612d32', '\x7468652075736572206465636c696e6564', NULL, 15, 2167377375);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (6, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 6, '2026-11-30 12:00:06+00', 'chat.message', 1, '{"role":"user","text":"fix the tests"}', 0, NULL, NULL, NULL, 0, 815042397);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (7, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 7, '2026-11-30 12:00:07+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-3","request":{"arguments":{"target":"tests/"},"tool_name":"run_tests"},"tier":"confirm","tool_name":"run_tests"}', 1, '\x612d33', '\x72756e5f7465737473', 1, 1, 3963380207);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (8, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 8, '2026-11-30 12:00:08+00', 'tool.execution.started', 1, '{"invocation_id":"a-3"}', 2, '\x612d33', NULL, NULL, 12, 1189428376);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (9, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 9, '2026-11-30 12:00:09+00', 'tool.execution.failed', 1, '{"invocation_id":"a-3","reason":"2 tests failed","recoverable":true}', 4, '\x612d33', '\x32207465737473206661696c6564', 1, 24, 2678029501);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (10, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 10, '2026-11-30 12:00:10+00', 'tool.execution.started', 1, '{"invocation_id":"a-3"}', 2, '\x612d33', NULL, NULL, -3, 1506616003);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (11, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 11, '2026-11-30 12:00:11+00', 'tool.invocation.requested', 1, '{"invocation_id":"a-4","request":{"arguments":{"path":"docs/index.md"},"tool_name":"read_file"},"tier":"auto","tool_name":"read_file"}', 1, '\x612d34', '\x726561645f66696c65', 0, 1, 4007263177);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (12, '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 12, '2026-11-30 12:00:12+00', 'tool.execution.started', 1, '{"invocation_id":"a-4"}', 2, '\x612d34', NULL, NULL, 12, 3479462072);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (13, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 1, '2026-11-30 12:00:01+00', 'tool.invocation.requested', 1, '{"invocation_id":"b-1","request":{"arguments":{"command":"ls -la"},"tool_name":"shell"},"tier":"confirm","tool_name":"shell"}', 1, '\x622d31', '\x7368656c6c', 1, 1, 3749178304);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (14, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 2, '2026-11-30 12:00:02+00', 'tool.execution.started', 1, '{"invocation_id":"b-1"}', 2, '\x622d31', NULL, NULL, 12, 3078055985);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (15, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 3, '2026-11-30 12:00:03+00', 'tool.execution.completed', 1, '{"invocation_id":"b-1","receipt":{"exit_code":0,"metadata":{},"output":"total 8\n"}}', 3, '\x622d31', NULL, 0, 23, 3129550227);
INSERT INTO legacy.correx_events OVERRIDING SYSTEM VALUE VALUES (16, '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 4, '2026-11-30 12:00:04+00', 'tool.execution.failed', 1, '{"invocation_id":"b-unknown","reason":"never requested","recoverable":false}', 4, '\x622d756e6b6e6f776e', '\x6e6576657220726571756573746564', 0, -2, 3077090005);


--
-- Data for Name: correx_invocations; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_invocations VALUES ('\x2f8fe63a6224321de5d0a24cf30067d37a358706b1ed38b015282ab68dc69ae9', '\x612d31', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 1, 3, '2026-11-30 12:00:01+00', 2, 3, '\x726561645f66696c65', 0, '2026-11-30 12:00:02+00', '2026-11-30 12:00:03+00', NULL, 0, 2131124662, 1232999315, 2902006544, 1270334905, 2208762955);
INSERT INTO legacy.correx_invocations VALUES ('\xd72e654c3645b02dde39fe0be595ef173409544f6e10ea1164759d6c284dbade', '\x612d32', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 4, 5, '2026-11-30 12:00:04+00', NULL, 5, '\x77726974655f66696c65', 1, NULL, '2026-11-30 12:00:05+00', '\x7468652075736572206465636c696e6564', NULL, 296929111, 2017699454, 0, 3804004881, 0);
INSERT INTO legacy.correx_invocations VALUES ('\x2cb72cc6837572f49baf91e463c75685f5befc1a4fc1bc8533a7f5619ef2c34f', '\x612d33', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 7, 4, '2026-11-30 12:00:07+00', 8, 9, '\x72756e5f7465737473', 1, '2026-11-30 12:00:08+00', '2026-11-30 12:00:09+00', '\x32207465737473206661696c6564', 1, 2221180887, 3349098140, 0, 3963380207, 0);
INSERT INTO legacy.correx_invocations VALUES ('\x3889ba3ba2382edc3761429c144cb1705f4cd19353d7431abfaa882bc8c67f3b', '\x612d34', '\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 11, 2, '2026-11-30 12:00:11+00', 12, NULL, '\x726561645f66696c65', 0, '2026-11-30 12:00:12+00', NULL, NULL, NULL, 132838041, 2827919908, 0, 4007263177, 0);
INSERT INTO legacy.correx_invocations VALUES ('\x3e499e752620c6a90ed59a200a18132411045ba50ea06c76673ecd53298e5151', '\x622d31', '\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 1, 3, '2026-11-30 12:00:01+00', 2, 3, '\x7368656c6c', 1, '2026-11-30 12:00:02+00', '2026-11-30 12:00:03+00', NULL, 0, 1618450943, 3010043509, 3725076070, 3749178304, 3129550227);


--
-- Data for Name: correx_session_heads; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_session_heads VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', 12, 0, 1, 1, 1, 1, 1, 3479462072, false, 3801848817);
INSERT INTO legacy.correx_session_heads VALUES ('\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', 4, 0, 0, 1, 0, 0, 1, 3077090005, false, 582661483);


--
-- Data for Name: correx_sessions; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_sessions VALUES ('\x01f7fa9611eb922234192c18c3a29287bf6ddf5acfce418bd330f9284e0f7e11', '\x6c65676163792d73657373696f6e2d61', 12);
INSERT INTO legacy.correx_sessions VALUES ('\x17daba91639ca24d5e65c235b48ba753f362991ae82ddb2a0bcbc01e49af2a4e', '\x6c65676163792d73657373696f6e2d62', 4);


--
-- Data for Name: correx_settings; Type: TABLE DATA; Schema: legacy; Owner: -
--

INSERT INTO legacy.correx_settings VALUES ('checkpoint_interval', 4);
INSERT INTO legacy.correx_settings VALUES ('layout', 4);


--
-- Name: correx_events_position_seq; Type: SEQUENCE SET; Schema: legacy; Owner: -
--

SELECT pg_catalog.setval('legacy.correx_events_position_seq', 16, true);


--
-- Name: correx_checkpoints correx_checkpoints_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_checkpoints
    ADD CONSTRAINT correx_checkpoints_pkey PRIMARY KEY (session_key, sequence);


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
-- Name: correx_session_heads correx_session_heads_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_session_heads
    ADD CONSTRAINT correx_session_heads_pkey PRIMARY KEY (session_key);


--
-- Name: correx_sessions correx_sessions_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_sessions
    ADD CONSTRAINT correx_sessions_pkey PRIMARY KEY (session_key);


--
-- Name: correx_settings correx_settings_pkey; Type: CONSTRAINT; Schema: legacy; Owner: -
--

ALTER TABLE ONLY legacy.correx_settings
    ADD CONSTRAINT correx_settings_pkey PRIMARY KEY (name);


--
-- Name: correx_events_refused; Type: INDEX; Schema: legacy; Owner: -
--

CREATE INDEX correx_events_refused ON legacy.correx_events USING btree (session_key, sequence) WHERE (effect < 0);


--
-- Name: correx_events_said; Type: INDEX; Schema: legacy; Owner: -
--

CREATE INDEX correx_events_said ON legacy.correx_events USING btree (session_key, sequence) WHERE (type = ANY (ARRAY['conversation.prompt'::text, 'conversation.reasoning'::text, 'conversation.text'::text, 'conversation.usage'::text]));


--
-- Name: correx_invocations_by_session; Type: INDEX; Schema: legacy; Owner: -
--

CREATE INDEX correx_invocations_by_session ON legacy.correx_invocations USING btree (session_key, sequence);


--
-- Name: correx_invocations_exited; Type: INDEX; Schema: legacy; Owner: -
--

CREATE INDEX correx_invocations_exited ON legacy.correx_invocations USING btree (session_key, ended_seq) WHERE ((status = 3) AND (end_code <> 0));


--
-- Name: correx_invocations_open; Type: INDEX; Schema: legacy; Owner: -
--

CREATE INDEX correx_invocations_open ON legacy.correx_invocations USING btree (session_key, sequence) WHERE (ended_seq IS NULL);


--
-- Name: correx_events correx_events_changed; Type: TRIGGER; Schema: legacy; Owner: -
--

CREATE TRIGGER correx_events_changed AFTER UPDATE OF session_key, sequence, recorded_at, type, version, data ON legacy.correx_events FOR EACH ROW EXECUTE FUNCTION legacy.correx_mark_stale();


--
-- Name: correx_events correx_events_deleted; Type: TRIGGER; Schema: legacy; Owner: -
--

CREATE TRIGGER correx_events_deleted AFTER DELETE ON legacy.correx_events FOR EACH ROW EXECUTE FUNCTION legacy.correx_mark_stale();


--
-- Name: correx_events correx_events_unindexed; Type: TRIGGER; Schema: legacy; Owner: -
--

CREATE TRIGGER correx_events_unindexed AFTER INSERT ON legacy.correx_events FOR EACH ROW WHEN ((new.effect IS NULL)) EXECUTE FUNCTION legacy.correx_mark_stale();


--
-- PostgreSQL database dump complete
--

\unrestrict LuSCdfT8DNNIUdO7vbd2pDUBfmgimePriI2TkJqMGYjJdF1MQbcgYbaY7thySi1

