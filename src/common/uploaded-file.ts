// A file part of a multipart/form-data request, as the body parser (app.ts) hands it to routes and
// routes hand it to services (avatars, wiki attachments).

export interface UploadedFile {
  filename: string
  mimetype: string
  data: Buffer
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).data) &&
    typeof (value as UploadedFile).filename === 'string'
}
