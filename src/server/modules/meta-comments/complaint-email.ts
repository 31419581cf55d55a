import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../config.ts';
import { sendEmail, storeOwnerContact } from '../email/email.service.ts';
import type { MetaCommentEntity } from './meta-comments.entities.ts';

// The rule "Flag complaints that need a reply" notifies the store's owner: one e-mail per sync or
// webhook delivery that flagged new complaints (template `comment_complaints`), with a one-click
// unsubscribe that switches the rule's notices off.

const QUOTE_LENGTH = 200;
const LISTED_AT_MOST = 20;

function complaintLine(comment: Pick<MetaCommentEntity, 'authorName' | 'message' | 'platform' | 'postText'>): string {
  const message = comment.message.length > QUOTE_LENGTH ? `${comment.message.slice(0, QUOTE_LENGTH - 1)}…` : comment.message;
  const where = comment.platform === 'instagram' ? 'Instagram' : 'Facebook';
  const post = comment.postText ? ` on "${comment.postText.slice(0, 60)}"` : '';
  return `- ${comment.authorName || 'Someone'} (${where}${post}): "${message.replace(/\s+/g, ' ')}"`;
}

function listed(complaints: MetaCommentEntity[]): string {
  const lines = complaints.slice(0, LISTED_AT_MOST).map(complaintLine);
  if (complaints.length > LISTED_AT_MOST) lines.push(`… and ${complaints.length - LISTED_AT_MOST} more`);
  return lines.join('\n');
}

export async function sendComplaintEmail(em: EntityManager, storeId: number, complaints: MetaCommentEntity[]): Promise<number | null> {
  if (complaints.length === 0) return null;
  const owner = await storeOwnerContact(em, storeId);
  if (!owner) return null;
  const publicUrl = (loadConfig().publicUrl ?? '').replace(/\/$/, '');
  const email = await sendEmail(em, {
    to: owner.email,
    template: 'comment_complaints',
    userId: owner.userId,
    variables: { storeName: owner.storeName, complaints: listed(complaints), commentsUrl: `${publicUrl}/meta-comments-manager` },
    ...(publicUrl ? { unsubscribe: { target: { kind: 'comment_complaints' as const, storeId }, baseUrl: publicUrl } } : {}),
  });
  return email.id;
}
