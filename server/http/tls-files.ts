/**
 * The certificate and key of `--tls-cert FILE --tls-key FILE`, read and checked at start-up
 * so that a wrong file is one line naming it (exit 2), not a TLS error on the first
 * connection: each must be readable PEM of its kind, and the key must be the certificate's.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** A certificate or key file that cannot be served with, named in the message. */
export class TlsFilesError extends Error {
  override readonly name = "TlsFilesError";
}

function reason(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" && error.code.startsWith("E") && !error.code.startsWith("ERR_")) return error.code;
  return error instanceof Error ? error.message : String(error);
}

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new TlsFilesError(`cannot read the TLS ${what} ${file}: ${reason(error)}`);
  }
}

/** Reads and checks both files; throws `TlsFilesError`. */
export function readTlsFiles(certFile: string, keyFile: string): TlsFiles {
  const cert = read(certFile, "certificate");
  const key = read(keyFile, "key");
  try {
    new X509Certificate(cert);
  } catch (error) {
    throw new TlsFilesError(`the TLS certificate ${certFile} is not a PEM certificate: ${reason(error)}`);
  }
  try {
    createPrivateKey(key);
  } catch (error) {
    throw new TlsFilesError(`the TLS key ${keyFile} is not a PEM private key (an encrypted key is not supported): ${reason(error)}`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsFilesError(`the TLS key ${keyFile} does not belong to the certificate ${certFile}: ${reason(error)}`);
  }
  return { cert, key };
}
