import type { PageModule } from '../../pages.ts';
import { ConnectorList } from './list.tsx';
import { SocialConnectorDetails } from './social.tsx';
import { SsoConnectorDetails } from './sso.tsx';

export const connectorsPage: PageModule = {
  id: 'connectors',
  title: 'Connectors',
  routes: { '': ConnectorList, 'social/:id': SocialConnectorDetails, 'sso/:id': SsoConnectorDetails },
};
