import type { FastifyInstance } from 'fastify';
import type { AuditEvent } from '../../domain/audit.js';
import { findAuditEvents, parseAuditQuery } from '../audit-list.js';
import { type ConsoleOptions, frameOf, html, tenantOfState } from './context.js';
import { fieldErrorsOf, filtersOf } from './page-routes.js';
import { type AuditFilters, AuditTrail } from './pages/audit.js';
import { Layout, page } from './pages/layout.js';
import { consoleState } from './signed-in.js';

/** /console/audit: the shown mode's audit trail through the API's own query and paging. */
export async function consoleAuditRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/audit', async (request, reply) => {
    const state = consoleState(request);
    const tenant = tenantOfState(state);
    const filters: AuditFilters = filtersOf(request.query);
    let found: { items: AuditEvent[]; nextCursor: string | null } = { items: [], nextCursor: null };
    let errors: Record<string, string> = {};
    try {
      found = await findAuditEvents(tenant, parseAuditQuery(filters), opts);
    } catch (caught) {
      const fields = fieldErrorsOf(caught);
      if (!fields) throw caught;
      errors = fields;
      reply.code(400);
    }
    // The keys that acted, named as the keys page names them.
    const keys = await opts.tenants.forTenant(state.session.tenantId).keys.list();
    const prefixes = new Map(keys.map((k) => [k.keyId, k.prefix]));
    const references = await tenant.audit.references(found.items);
    return html(
      reply,
      page(
        'Audit trail',
        <Layout frame={frameOf(state, 'audit')} title="Audit trail">
          <AuditTrail view={{ ...found, filters, prefixes, references, errors }} />
        </Layout>,
      ),
    );
  });
}
