import nodemailer, { type Transporter } from "nodemailer";
import type { Config } from "@/server/config";
import type { Db } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/logger";
import { isoOrNull } from "@/server/lib/dates";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
}

let transport: { url: string; transporter: Transporter } | undefined;

function smtpTransport(url: string): Transporter {
  if (transport?.url !== url) {
    transport = {
      url,
      transporter: nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as never),
    };
  }
  return transport.transporter;
}

/**
 * Sends an email. With SMTP_URL the message goes out in the background (the caller's response time
 * must not depend on the mail server, nor reveal whether an account exists) and only its envelope
 * is recorded. Without it, the whole message stays in the outbox table for operators (/admin/outbox)
 * and, outside production, is printed to the log for the developer.
 * Resolves when the message is recorded; `delivered` settles when SMTP delivery ends.
 */
export async function sendEmail(db: Db, config: Config, msg: OutgoingEmail): Promise<{ id: string; delivered: Promise<void> }> {
  const id = newId("eml");
  if (!config.smtpUrl) {
    await db.emailMessage.create({ data: { id, to: msg.to, subject: msg.subject, body: msg.text, status: "OUTBOX" } });
    // Development only: the one log line allowed to carry a reset link, so a developer can click it.
    if (!config.isProduction) log.info("email kept in the outbox (SMTP_URL is not set)", { emailId: id, to: msg.to, subject: msg.subject, body: msg.text });
    else log.info("email kept in the outbox (SMTP_URL is not set)", { emailId: id });
    return { id, delivered: Promise.resolve() };
  }
  await db.emailMessage.create({ data: { id, to: msg.to, subject: msg.subject, body: null, status: "SENDING" } });
  const smtpUrl = config.smtpUrl;
  const delivered = (async () => {
    try {
      await smtpTransport(smtpUrl).sendMail({ from: config.emailFrom, to: msg.to, subject: msg.subject, text: msg.text });
      await db.emailMessage.update({ where: { id }, data: { status: "SENT", sentAt: new Date() } });
      log.info("email sent", { emailId: id });
    } catch (err) {
      // Nodemailer's messages name the server's answer, never the URL's credentials.
      const error = err instanceof Error ? err.message.slice(0, 500) : "send failed";
      log.warn("email could not be sent", { emailId: id, error });
      await db.emailMessage.update({ where: { id }, data: { status: "FAILED", error } }).catch(() => undefined);
    }
  })();
  return { id, delivered };
}

/** Outgoing email for operators, newest first; bodies exist only for outbox messages. */
export async function listEmails(db: Db, input: { cursor?: string | null }, pageSize = 50) {
  const rows = await db.emailMessage.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: pageSize + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, pageSize);
  return {
    items: page.map((r) => ({
      id: r.id,
      to: r.to,
      subject: r.subject,
      body: r.body,
      status: r.status as "OUTBOX" | "SENDING" | "SENT" | "FAILED",
      error: r.error,
      createdAt: r.createdAt.toISOString(),
      sentAt: isoOrNull(r.sentAt),
    })),
    nextCursor: rows.length > pageSize ? page[page.length - 1]!.id : null,
  };
}

/** Outbox and sent-message records older than this are dropped by the retention purge. */
export const EMAIL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export async function purgeOldEmails(db: Db, now = Date.now()): Promise<number> {
  const res = await db.emailMessage.deleteMany({ where: { createdAt: { lt: new Date(now - EMAIL_RETENTION_MS) } } });
  return res.count;
}
