import type { PageModule } from '../../pages.ts';
import { WebhookList } from './list.tsx';
import { WebhookDetails } from './details.tsx';

export const webhooksPage: PageModule = {
  id: 'webhooks',
  title: 'Webhooks',
  routes: { '': WebhookList, ':id': WebhookDetails },
};
