import type { OriginPatternError } from '@bridgekit/contract/origin-pattern';
import type { DataSourceListMessages } from '../src/data-source-list/data-source-list-messages';
import type { MemberListMessages } from '../src/member-list/member-list-messages';
import type { OrganizationSettingsMessages } from '../src/organization-settings/organization-settings-messages';
import type { Messages } from '../src/provider/messages';
import type { SchemaBrowserMessages } from '../src/schema-browser/schema-browser-messages';

// A French set for the lifecycle components' groups, as a host would write it: each group is
// typed by the component's own, so a string added to a component without its French fails the
// type check.

const dateTime = new Intl.DateTimeFormat('fr-FR', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'UTC',
});
const relative = new Intl.RelativeTimeFormat('fr-FR', { numeric: 'auto' });

const time = {
  relativeTime: (iso: string, now: number) => {
    const minutes = Math.round((Date.parse(iso) - now) / 60_000);
    if (Math.abs(minutes) < 1) return 'à l’instant';
    if (Math.abs(minutes) < 60) return relative.format(minutes, 'minute');
    if (Math.abs(minutes) < 1440) return relative.format(Math.round(minutes / 60), 'hour');
    return relative.format(Math.round(minutes / 1440), 'day');
  },
  absoluteTime: (iso: string) => dateTime.format(new Date(iso)),
};

const memberList: MemberListMessages = {
  membersTitle: 'Membres',
  membersLoading: 'Chargement des membres…',
  membersEmpty: 'Aucun membre pour l’instant.',
  membersLoadFailed: 'Impossible de charger les membres.',
  membersReadOnly: 'Seuls les administrateurs de cette organisation peuvent modifier ses membres.',
  you: 'vous',
  roleOf: (name) => `Rôle de ${name}`,
  roleChanged: (name, role) => `${name} est maintenant ${role}.`,
  roleChangeFailed: 'Impossible de changer le rôle.',
  lastAdmin:
    'Seul administrateur : nommez un autre administrateur avant de changer ce rôle ou de retirer ce membre.',
  removeMember: 'Retirer',
  removeMemberNamed: (name) => `Retirer ${name}`,
  removeMemberTitle: 'Retirer ce membre ?',
  removeMemberDescription: (name) =>
    `${name} perdra l’accès à cette organisation et à ses sources de données.`,
  removeMemberConfirm: 'Retirer le membre',
  removingMember: 'Retrait…',
  memberRemoved: (name) => `${name} a été retiré.`,
  removeMemberFailed: 'Impossible de retirer ce membre.',
  addMemberTitle: 'Ajouter un membre',
  addMemberEmail: 'E-mail',
  addMemberRole: 'Rôle',
  addMember: 'Ajouter',
  addingMember: 'Ajout…',
  memberAdded: (email) => `${email} a été ajouté.`,
  addMemberFailed: 'Impossible d’ajouter ce membre.',
  emailRequired: 'Saisissez une adresse e-mail',
};

const originErrors: Record<OriginPatternError, string> = {
  form: 'Doit être https://hôte ou https://*.hôte',
  too_long: 'Au plus 300 caractères',
  whitespace: 'Sans espaces ni caractères de contrôle',
  backslash: 'Sans barres obliques inverses',
  percent: 'Sans encodage pourcent',
  userinfo: 'Sans nom d’utilisateur ni mot de passe',
  path: 'Sans chemin',
  query: 'Sans paramètres',
  fragment: 'Sans fragment',
  ip: 'Adresses IP interdites, sauf http://127.0.0.1',
  port: 'Le port doit être un nombre de 1 à 65535',
  missing_host: 'Indiquez un hôte',
  bad_host: 'Nom de domaine invalide',
  bad_wildcard: 'Le joker doit être tout le premier libellé, comme https://*.example.com',
  http_only_local: 'http:// n’est permis que pour localhost et 127.0.0.1',
  public_suffix: 'Pas un suffixe public comme com ou co.uk',
  public_suffix_wildcard: 'Le joker ne doit pas couvrir un suffixe public comme *.com ou *.co.uk',
};

const organizationSettings: OrganizationSettingsMessages = {
  orgLoading: 'Chargement de l’organisation…',
  orgNotFound: 'Organisation introuvable.',
  orgLoadFailed: 'Impossible de charger l’organisation.',
  orgReadOnly: 'Seuls les administrateurs de cette organisation peuvent modifier ses réglages.',
  orgHostSettingsLocked:
    'Le slug, la page d’intégration et ses origines autorisées se règlent depuis votre application avec une clé d’API, tout comme la suppression de l’organisation.',
  orgGeneral: 'Général',
  orgName: 'Nom',
  orgSlug: 'Identifiant',
  orgSlugHint:
    'Minuscules, chiffres et tirets internes ; il figure dans l’adresse de l’intégration.',
  orgAiContext: 'Contexte IA',
  orgAiContextHint: 'Ce que l’assistant doit savoir de cette organisation.',
  orgFullEmbed: 'Autoriser la page intégrée',
  orgOrigins: 'Origines autorisées',
  orgOriginsHint: 'Sites qui peuvent intégrer la page : https://hôte ou https://*.hôte.',
  orgOriginsEmpty: 'Aucune origine : aucun site ne peut intégrer la page.',
  originLabel: (n) => `Origine ${n}`,
  addOrigin: 'Ajouter une origine',
  removeOriginNamed: (n) => `Retirer l’origine ${n}`,
  originDuplicate: 'Déjà dans la liste',
  originErrors,
  orgRequired: 'Obligatoire',
  orgCheckFields: 'Vérifiez les champs signalés.',
  orgSave: 'Enregistrer',
  orgSaving: 'Enregistrement…',
  orgSaved: 'Enregistré.',
  orgSaveFailed: 'Impossible d’enregistrer les réglages.',
  secretTitle: 'Secret de signature SSO',
  secretDescription:
    'Votre serveur signe les jetons SSO avec ce secret. Une rotation en émet un nouveau ; l’ancien reste valable pendant un délai de grâce.',
  secretGraceUntil: (iso) =>
    `L’ancien secret reste valable jusqu’au ${dateTime.format(new Date(iso))} UTC.`,
  rotateSecret: 'Renouveler le secret',
  rotateTitle: 'Renouveler le secret de signature ?',
  rotateDescription:
    'Un nouveau secret est émis immédiatement. L’actuel reste valable pendant un délai de grâce : passez votre serveur au nouveau avant la fin.',
  rotateConfirm: 'Renouveler',
  rotating: 'Renouvellement…',
  rotateFailed: 'Impossible de renouveler le secret.',
  newSecret: 'Nouveau secret de signature',
  newSecretOnce: 'Copiez-le maintenant : il n’est affiché qu’une fois.',
  copy: 'Copier',
  copied: 'Copié.',
  copyFailed: 'Copie impossible : sélectionnez le texte et copiez-le.',
  deleteOrgTitle: 'Supprimer l’organisation',
  deleteOrgDescription:
    'Supprime l’organisation, ses sources de données, ses membres et ses sessions. Action irréversible.',
  deleteOrg: 'Supprimer l’organisation',
  deleteOrgConfirmTitle: 'Supprimer l’organisation ?',
  deleteOrgTypeToConfirm: (slug) => `Saisissez ${slug} pour confirmer`,
  deleteOrgConfirm: 'Supprimer',
  deletingOrg: 'Suppression…',
  deleteOrgFailed: 'Impossible de supprimer l’organisation.',
  orgDeleted: (name) => `« ${name} » a été supprimée.`,
  orgSettingsTitle: 'Réglages de l’organisation',
};

const dataSourceList: DataSourceListMessages = {
  ...time,
  health: 'Santé',
  healthy: 'Opérationnelle',
  unhealthy: 'En panne',
  healthUnknown: 'Pas encore vérifiée',
  checking: 'Vérification',
  checkedAt: (when) => `Vérifiée le ${when}`,
  lastHealthyAt: (when) => `Opérationnelle le ${when}`,
  sync: 'Synchronisation du schéma',
  synced: 'Synchronisée',
  syncing: 'Synchronisation',
  syncFailed: 'Échec de synchronisation',
  notSynced: 'Pas encore synchronisée',
  syncStartedAt: (when) => `Commencée le ${when}`,
  syncAttemptAt: (when) => `Dernier essai le ${when}`,
  lastSyncedAt: (when) => `Synchronisée le ${when}`,
  syncNow: 'Synchroniser',
  syncNowNamed: (name) => `Synchroniser ${name}`,
  syncNotStarted: 'Impossible de lancer la synchronisation.',
  checkNow: 'Vérifier',
  checkNowNamed: (name) => `Vérifier ${name}`,
  checkNotRun: 'Impossible de lancer la vérification.',
  tables: 'Tables',
  tablesOf: (name) => `Tables de ${name}`,
  dataSources: 'Sources de données',
  dataSourcesLoading: 'Chargement des sources de données…',
  dataSourcesEmpty: 'Aucune source de données pour l’instant.',
  dataSourcesLoadFailed: 'Impossible de charger les sources de données.',
  addDataSource: 'Ajouter une source',
  edit: 'Modifier',
  editNamed: (name) => `Modifier ${name}`,
  editTitle: (name) => `Modifier « ${name} »`,
  closeEditor: 'Fermer',
  deletedNamed: (name) => `« ${name} » a été supprimée.`,
};

const schemaBrowser: SchemaBrowserMessages = {
  ...time,
  schemaLabel: (name) => `Tables de ${name}`,
  schemaLabelPlain: 'Tables',
  tablesLoading: 'Chargement des tables…',
  tablesLoadingCount: (loaded, total) => `${loaded} tables chargées sur ${total}…`,
  tablesEmpty: 'La dernière synchronisation n’a trouvé aucune table.',
  tablesNotSynced:
    'Pas encore synchronisée : les tables apparaissent après une synchronisation réussie.',
  tablesLoadFailed: 'Impossible de charger les tables.',
  tablesSummary: (count, when) =>
    `${count} ${count === 1 ? 'table' : 'tables'}${when ? `, lues ${when}` : ''}`,
  tablesTruncated: 'La base compte plus de tables que le pont n’en garde ; les autres sont omises.',
  schemaSearch: 'Chercher une table ou une colonne',
  schemaSearchPlaceholder: 'Chercher une table ou une colonne',
  schemaNoMatch: (query) => `Aucune table ni colonne ne correspond à « ${query} ».`,
  schemaMatches: (count) => `${count} ${count === 1 ? 'table correspond' : 'tables correspondent'}`,
  view: 'vue',
  nullable: 'facultative',
  columns: (count) => `${count} ${count === 1 ? 'colonne' : 'colonnes'}`,
};

/** The lifecycle components in French, with the core strings they show. */
export const frenchLifecycle: Partial<Messages> = {
  retry: 'Réessayer',
  cancel: 'Annuler',
  close: 'Fermer',
  loadMore: 'Afficher plus',
  loadingMore: 'Chargement…',
  roleAdmin: 'Admin',
  roleMember: 'Membre',
  ...memberList,
  ...organizationSettings,
  ...dataSourceList,
  ...schemaBrowser,
};
